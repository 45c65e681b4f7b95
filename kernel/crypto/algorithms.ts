/**
 * The cryptographic algorithms this build uses, by their standard names: what
 * `GET /api/v1/network/status` lists as `crypto` (decisions.md §88). Each entry names where it is used.
 */
export const CRYPTO_ALGORITHMS: readonly string[] = [
  'ML-DSA-65', // FIPS 204: transaction, vote, proposal, checkpoint and P2P handshake signatures (crypto/provider.ts)
  'ML-KEM-768', // FIPS 203: the P2P handshake's key exchange (p2p/tcp/wire.ts)
  'SHA3-256', // FIPS 202: addresses, hashes, state tree, Merkle roots (crypto/hash.ts)
  'ChaCha20-Poly1305', // RFC 8439: P2P frames after the handshake (p2p/tcp/frame.ts)
  'HKDF-SHA3-256', // RFC 5869 over SHA3-256: P2P session keys (p2p/tcp/wire.ts)
  'BIP-39', // recovery phrases (crypto/mnemonic.ts)
];
