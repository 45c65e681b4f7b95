import { isKeyDerivedAddress } from '../crypto/address.js';
import type { StateOverlay, StateSource } from '../state/overlay.js';
import { jsonRecord } from '../state/record-codec.js';
import { ACCOUNT_KEYS_NAMESPACE } from '../state/accounts.js';
import { toHex } from '../codec/hex.js';

/**
 * The main keys of an address: the keys that sign for it as its owner (Lisk's auth module keeps
 * the same per-account key list). Three sources, most explicit first:
 * 1. an explicit key set (`auth/keys/<address>`), written by a plugin that manages keys
 *    (rotation, recovery); once present it is the whole truth, so a removed derived key is
 *    refused like any unknown key;
 * 2. a single bound key (`acctkey/<address>`, the faucet's or a registration's binding); it
 *    replaces the derived key of a key-derived address when it differs from it;
 * 3. the derived key of a key-derived address (decisions.md §3), bound without registration.
 */
export const AUTH_NAMESPACE = 'auth';

export interface KeySet {
  /** Lowercase hex ML-DSA-65 public keys, in the order they were added. */
  readonly keys: readonly string[];
  /** 0 before any change; each change adds one (`GET /api/v1/identity/:addr` shows it). */
  readonly version: number;
}

const codec = jsonRecord<KeySet>();

export function keySetKey(address: string): string {
  return `${AUTH_NAMESPACE}/keys/${address}`;
}

export async function readKeySet(source: StateSource, address: string): Promise<KeySet | undefined> {
  const raw = await source.get(keySetKey(address));
  return raw === undefined ? undefined : codec.decode(raw);
}

export function writeKeySet(overlay: StateOverlay, address: string, set: KeySet): void {
  overlay.set(keySetKey(address), codec.encode({ keys: [...set.keys], version: set.version }));
}

/** A public key presented with a signature, with the address it derives (computed once per transaction). */
export interface PresentedKey {
  readonly hex: string;
  readonly bytes: Uint8Array;
  readonly derived: string;
}

/** Whether `key` is a main key of `address` (the three sources above); the hot path of every signed transaction. */
export async function isMainKey(source: StateSource, address: string, key: PresentedKey): Promise<boolean> {
  const explicit = await readKeySet(source, address);
  if (explicit) return explicit.keys.includes(key.hex);
  const bound = await source.get(`${ACCOUNT_KEYS_NAMESPACE}/${address}`);
  if (bound !== undefined) return Buffer.from(bound.buffer, bound.byteOffset, bound.byteLength).equals(key.bytes);
  return key.derived === address && isKeyDerivedAddress(address);
}

/**
 * The main keys of `address` as a list (for identity views): the explicit set, else the bound
 * key, else the derived key when `derivedKey` (the key of a used key-derived address) is known.
 */
export async function listMainKeys(source: StateSource, address: string, derivedKey?: string): Promise<KeySet> {
  const explicit = await readKeySet(source, address);
  if (explicit) return explicit;
  const bound = await source.get(`${ACCOUNT_KEYS_NAMESPACE}/${address}`);
  if (bound !== undefined) return { keys: [toHex(bound)], version: 0 };
  return { keys: derivedKey !== undefined ? [derivedKey] : [], version: 0 };
}
