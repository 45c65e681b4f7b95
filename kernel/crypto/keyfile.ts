import { readFileSync, writeFileSync, mkdirSync, chmodSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { toHex, parseHex } from '../codec/hex.js';
import { deriveAddress } from './address.js';
import type { KeyPair, SignatureProvider } from './provider.js';

/**
 * A key file holds the 32-byte seed (the secret) and, for readability, the public key and
 * addresses derived from it. It is written with mode 0600; the key pair is regenerated from the
 * seed on load, and a file whose stored public key does not match is refused.
 */
export interface KeyFile {
  readonly seed_hex: string;
  readonly public_key: string;
  /** Key-derived `.human` address. */
  readonly address: string;
  /** `chain:<name>.node` when the key is a validator's consensus key. */
  readonly node_address?: string;
}

export interface LoadedKey {
  readonly file: KeyFile;
  readonly keys: KeyPair;
}

const NODE_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function makeKeyFile(provider: SignatureProvider, seed: Uint8Array, nodeName?: string): LoadedKey {
  if (nodeName !== undefined && !NODE_NAME_RE.test(nodeName)) throw new Error(`node name "${nodeName}" must be lowercase letters, digits, _ or -`);
  const keys = provider.keygen(seed);
  const file: KeyFile = {
    seed_hex: toHex(seed),
    public_key: toHex(keys.publicKey),
    address: deriveAddress(keys.publicKey),
    ...(nodeName !== undefined ? { node_address: `chain:${nodeName}.node` } : {}),
  };
  return { file, keys };
}

export function writeKeyFile(path: string, file: KeyFile, overwrite = false): void {
  if (existsSync(path) && !overwrite) throw new Error(`${path} exists; refusing to overwrite a key file`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(file, null, 2) + '\n', { mode: 0o600 });
  chmodSync(path, 0o600); // writeFileSync's mode applies only when it creates the file
}

export function readKeyFile(path: string, provider: SignatureProvider): LoadedKey {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read key file ${path}: ${(e as Error).message}`);
  }
  const f = raw as Partial<KeyFile>;
  const seed = typeof f.seed_hex === 'string' ? parseHex(f.seed_hex, 32) : null;
  if (!seed) throw new Error(`key file ${path}: seed_hex must be 64 hex characters`);
  const keys = provider.keygen(seed);
  if (f.public_key !== undefined && f.public_key !== toHex(keys.publicKey)) throw new Error(`key file ${path}: public_key does not match the seed`);
  const file: KeyFile = {
    seed_hex: f.seed_hex!,
    public_key: toHex(keys.publicKey),
    address: deriveAddress(keys.publicKey),
    ...(typeof f.node_address === 'string' ? { node_address: f.node_address } : {}),
  };
  return { file, keys };
}
