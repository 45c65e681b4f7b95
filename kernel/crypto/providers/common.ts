import type { SignatureProvider } from '../provider.js';
import { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SECRET_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES } from '../provider.js';

/** The names CHAIN_CRYPTO_PROVIDER accepts besides `auto`; also what a pool worker loads. */
export type ProviderName = 'noble' | 'pqclean' | 'node';
export const PROVIDER_NAMES: readonly ProviderName[] = ['node', 'pqclean', 'noble'];

export function isProviderName(v: unknown): v is ProviderName {
  return v === 'noble' || v === 'pqclean' || v === 'node';
}

/**
 * A provider plus what the shared vector suite needs to see about it. `signNative` is the
 * library's own signing, when it exists: PQClean and OpenSSL sign hedged only (fresh randomness
 * per signature), so their `sign` (the deterministic reference) goes through noble, and
 * `signNative` serves callers that keep what they signed instead of signing again: consensus
 * votes and proposals, behind the double-sign guard. The vector suite proves its signatures
 * from the same secret key bytes verify everywhere.
 */
export interface LoadedProvider extends SignatureProvider {
  readonly name: ProviderName;
  /** One line for the start log: library, backend, what runs natively. */
  readonly description: string;
  readonly signNative?: (message: Uint8Array, secretKey: Uint8Array) => Uint8Array;
}

/**
 * Which signer a caller wants: `deterministic`, the FIPS 204 reference every provider makes
 * (through noble where its library cannot); `native`, the library's own where it has one.
 */
export type SigningMode = 'deterministic' | 'native';

export function signerFor(provider: LoadedProvider, mode: SigningMode): (message: Uint8Array, secretKey: Uint8Array) => Uint8Array {
  return mode === 'native' && provider.signNative ? provider.signNative : (message, secretKey) => provider.sign(message, secretKey);
}

export type ProviderLoad = { readonly ok: true; readonly provider: LoadedProvider } | { readonly ok: false; readonly reason: string };

/** A bad length is an invalid signature, never a throw (native bindings throw TypeErrors on them). */
export function wellFormed(signature: Uint8Array, publicKey: Uint8Array): boolean {
  return signature.length === ML_DSA65_SIGNATURE_BYTES && publicKey.length === ML_DSA65_PUBLIC_KEY_BYTES;
}

export function checkSecretKey(secretKey: Uint8Array): void {
  if (secretKey.length !== ML_DSA65_SECRET_KEY_BYTES) throw new Error(`ML-DSA-65 secret key must be ${ML_DSA65_SECRET_KEY_BYTES} bytes, got ${secretKey.length}`);
}

/** Native bindings hand back Buffers; callers compare bytes with deepStrictEqual, so give plain Uint8Arrays. */
export function plain(bytes: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(bytes) === Uint8Array.prototype ? bytes : Uint8Array.from(bytes);
}

export function errorText(e: unknown): string {
  // First line only: module-resolution errors append a multi-line require stack.
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}
