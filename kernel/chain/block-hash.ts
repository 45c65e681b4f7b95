import { canonicalJson } from '../codec/json.js';
import { parseHex, toHex0x } from '../codec/hex.js';
import { sha3Hex0x } from '../crypto/hash.js';
import { merkleRoot } from '../crypto/merkle.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { BlockHeader } from '../model/types.js';
import type { Validator } from '../consensus/types.js';
import { sortValidators, validatorsHashText } from '../light-client/validator-set.js';

/** A block is identified by the SHA3-256 of its canonical header; commit votes sign this hash. */
export function blockHash(header: BlockHeader): string {
  return sha3Hex0x(canonicalJson(header));
}

/** Commits the block header to its transactions: the Merkle root of their ids, in block order. */
export function txRoot(txHashes: readonly string[]): string {
  return toHex0x(merkleRoot(txHashes.map((h) => parseHex(h)!)));
}

/** Commits the block header to its evidence list (ids in block order). */
export function evidenceHash(ids: readonly string[]): string {
  return sha3Hex0x(canonicalJson(ids));
}

/** The parent hash of block 1: binds the chain to its exact genesis document. */
export function genesisHash(genesis: GenesisDoc): string {
  return sha3Hex0x(canonicalJson(genesis));
}

/**
 * `validators_hash` of a set (decisions.md §84), in the canonical address order whatever order
 * the caller holds it in: the light client's own text, so header and verifier never differ.
 */
export function validatorSetHash(set: readonly Validator[]): string {
  // The light client's text, hashed through OpenSSL: its pure-JS SHA3 of a set's ~16 KB of keys
  // took ~2 ms of the main thread at every height (light-client.test.ts checks the two agree).
  return sha3Hex0x(validatorsHashText(sortValidators(set)));
}
