import { canonicalJson } from '../codec/json.js';
import { parseHex, toHex0x } from '../codec/hex.js';
import { sha3Hex0x } from '../crypto/hash.js';
import { merkleRoot } from '../crypto/merkle.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { BlockHeader } from './types.js';

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
