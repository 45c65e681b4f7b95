import { isKeyDerivedAddress } from '../crypto/address.js';
import type { StateOverlay, StateSource } from './overlay.js';
import { jsonRecord } from './record-codec.js';
import { ACCOUNT_KEYS_NAMESPACE } from './accounts.js';
import { toHex } from '../codec/hex.js';
import { ML_DSA65_PUBLIC_KEY_BYTES } from '../crypto/provider.js';

/**
 * The main keys of an address: the keys that sign for it as its owner (Lisk's auth module keeps
 * the same per-account key list). One state key holds them, `acctkey/<address>`, so checking a
 * signer costs one read, the one admission makes for the account anyway:
 * 1. absent: the derived key of a key-derived address (decisions.md §3), bound without
 *    registration, and nothing else;
 * 2. the 1 952 bytes of one public key: a single bound key (the faucet's binding, a
 *    registration's); it replaces the derived key when it differs from it;
 * 3. a key set (JSON `{keys, version}`), written by a plugin that manages keys (rotation,
 *    recovery): the whole truth, so a removed derived key is refused like any unknown key.
 */
export const AUTH_NAMESPACE = 'auth';

export interface KeySet {
  /** Lowercase hex ML-DSA-65 public keys, in the order they were added. */
  readonly keys: readonly string[];
  /** 0 before any change; each change adds one (`GET /api/v1/identity/:addr` shows it). */
  readonly version: number;
}

const codec = jsonRecord<KeySet>();

function keysKey(address: string): string {
  return `${ACCOUNT_KEYS_NAMESPACE}/${address}`;
}

/** A stored value is one raw key (a binding) or, in any other length, a key set. */
function isSingleKey(raw: Uint8Array): boolean {
  return raw.length === ML_DSA65_PUBLIC_KEY_BYTES;
}

/** The explicit key set of `address`, if a plugin wrote one. */
export async function readKeySet(source: StateSource, address: string): Promise<KeySet | undefined> {
  const raw = await source.get(keysKey(address));
  return raw === undefined || isSingleKey(raw) ? undefined : codec.decode(raw);
}

/** Replaces the main keys of `address` with an explicit set (key rotation, recovery). */
export function writeKeySet(overlay: StateOverlay, address: string, set: KeySet): void {
  overlay.set(keysKey(address), codec.encode({ keys: [...set.keys], version: set.version }));
}

/** A public key presented with a signature, with the address it derives (computed once per transaction). */
export interface PresentedKey {
  readonly hex: string;
  readonly bytes: Uint8Array;
  readonly derived: string;
}

/** Whether `key` is a main key of `address` (the three sources above); the hot path of every signed transaction. */
export async function isMainKey(source: StateSource, address: string, key: PresentedKey): Promise<boolean> {
  const raw = await source.get(keysKey(address));
  if (raw === undefined) return key.derived === address && isKeyDerivedAddress(address);
  if (isSingleKey(raw)) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).equals(key.bytes);
  return codec.decode(raw).keys.includes(key.hex);
}

/**
 * The main keys of `address` as a list (for identity views): the explicit set, else the bound
 * key, else the derived key when `derivedKey` (the key of a used key-derived address) is known.
 */
export async function listMainKeys(source: StateSource, address: string, derivedKey?: string): Promise<KeySet> {
  const raw = await source.get(keysKey(address));
  if (raw === undefined) return { keys: derivedKey !== undefined ? [derivedKey] : [], version: 0 };
  return isSingleKey(raw) ? { keys: [toHex(raw)], version: 0 } : codec.decode(raw);
}
