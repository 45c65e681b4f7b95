import { randomBytes } from '@noble/hashes/utils.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { deriveAddress } from '../kernel/crypto/address.js';
import { isValidMnemonic, newMnemonic, seedFromMnemonic } from '../kernel/crypto/mnemonic.js';
import { bytesOfHex, hexOf } from '../kernel/light-client/bytes.js';
import { SdkError } from './errors.js';

/**
 * An account key (decisions.md §1–4): ML-DSA-65 generated from a 32-byte seed, its key-derived
 * `.human` address, and deterministic signing. Made from a seed, a 24-word BIP-39 phrase (seed =
 * SHA3-256 of the BIP-39 seed) or a key file's JSON, through the kernel's own code, so the SDK
 * derives exactly what the node binds. Browser-safe.
 */
export interface ChainKey {
  /** The 32-byte seed as 64 hex: the secret. */
  readonly seedHex: string;
  readonly publicKeyHex: string;
  /** `chain:<15 hex>.human` (decisions.md §3). */
  readonly address: string;
  /** ML-DSA-65 signature of the bytes (FIPS 204, deterministic, empty context). */
  sign(message: Uint8Array): Uint8Array;
}

const SEED_BYTES = 32;

export function keyFromSeed(seed: Uint8Array | string): ChainKey {
  const bytes = typeof seed === 'string' ? bytesOfHex(seed.toLowerCase(), SEED_BYTES) : seed;
  if (bytes === null || bytes.length !== SEED_BYTES) throw new SdkError('key', 'a seed is 32 bytes (64 hex characters)');
  const { publicKey, secretKey } = nobleProvider.keygen(bytes);
  return {
    seedHex: hexOf(bytes),
    publicKeyHex: hexOf(publicKey),
    address: deriveAddress(publicKey),
    sign: (message) => nobleProvider.sign(message, secretKey),
  };
}

/** A fresh random key (a seed from the platform's CSPRNG). */
export function randomKey(): ChainKey {
  return keyFromSeed(randomBytes(SEED_BYTES));
}

/** A fresh 24-word BIP-39 English recovery phrase. */
export function generatePhrase(): string {
  return newMnemonic();
}

/** decisions.md §4: the key of a 24-word phrase (words separated by any whitespace, any case). */
export function keyFromPhrase(words: string): ChainKey {
  if (!isValidMnemonic(words)) throw new SdkError('key', 'not a BIP-39 English recovery phrase');
  return keyFromSeed(seedFromMnemonic(words));
}

/**
 * The key of a key file's JSON (`chain keys generate`, decisions.md §13: `seed_hex`, `public_key`,
 * `address`): regenerated from the seed; a file whose stored public key or address is not the
 * seed's is refused, as the node refuses it.
 */
export function keyFromKeyFile(json: unknown): ChainKey {
  const f = typeof json === 'string' ? (JSON.parse(json) as unknown) : json;
  if (typeof f !== 'object' || f === null || typeof (f as { seed_hex?: unknown }).seed_hex !== 'string') throw new SdkError('key', 'a key file needs seed_hex');
  const file = f as { seed_hex: string; public_key?: unknown; address?: unknown };
  const key = keyFromSeed(file.seed_hex);
  if (file.public_key !== undefined && file.public_key !== key.publicKeyHex) throw new SdkError('key', 'the key file\'s public_key is not its seed\'s');
  if (file.address !== undefined && file.address !== key.address) throw new SdkError('key', 'the key file\'s address is not its seed\'s');
  return key;
}

/** decisions.md §3: the address a public key derives. */
export function addressOf(publicKeyHex: string): string {
  const key = bytesOfHex(publicKeyHex.toLowerCase());
  if (key === null || key.length !== 1952) throw new SdkError('key', 'an ML-DSA-65 public key is 1 952 bytes of hex');
  return deriveAddress(key);
}
