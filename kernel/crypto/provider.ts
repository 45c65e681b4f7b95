/**
 * The one interface behind which every signature operation runs. Providers (noble today; PQClean
 * and node:crypto where available) must be byte-for-byte interchangeable: same key pair from the
 * same 32-byte seed, and each verifies what the others sign (FIPS 204, pure mode, empty context).
 */
export interface SignatureProvider {
  readonly name: string;
  /** Deterministic key generation from a 32-byte seed (FIPS 204 ML-DSA.KeyGen_internal(xi)). */
  keygen(seed: Uint8Array): KeyPair;
  /**
   * Deterministic signing (FIPS 204 with no extra randomness): the reference every provider
   * must reproduce byte for byte, checked against a known answer at start.
   */
  sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array;
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

export interface KeyPair {
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

export const ML_DSA65_PUBLIC_KEY_BYTES = 1952;
export const ML_DSA65_SIGNATURE_BYTES = 3309;
export const ML_DSA65_SECRET_KEY_BYTES = 4032;
