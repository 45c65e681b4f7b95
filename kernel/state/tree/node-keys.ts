import { HASH_BYTES } from './hashing.js';
import { VERSION_BYTES, readVersion, writeVersion } from './node-codec.js';

/** After the prefix: a node stored by an update (then its version, then its hash). */
const VERSIONED_MARK = 0xff;
/** After the prefix: the version a root's node is stored at (then the root's hash). */
const ROOT_MARK = 0xfe;

/**
 * Where the tree's records live under its prefix P:
 *
 *   P ‖ hash                          a node stored before versions (version 0)
 *   P ‖ 0xff ‖ version ‖ hash         a node stored by the update numbered `version`
 *   P ‖ 0xfe ‖ rootHash               that root's record (RootRecord, 12 bytes)
 *
 * A node keyed by its hash alone lands at a random place in the key space, so LevelDB merges
 * every byte of it again each time it moves down a level (~8 bytes written per byte stored at
 * 10^6 keys). Keyed by version first, a block's nodes sort after everything already stored and
 * LevelDB moves whole files down without rewriting them (docs/performance.md, "What an
 * append-ordered layout would save"). The hash stays in the key because two nodes of one update
 * differ only by it. Legacy keys are 32 bytes after P and the others 33 or 39, so no key of one
 * kind equals one of another. The root record is what lets callers keep naming a root by its hash
 * alone: one small write per block.
 */
export class NodeKeys {
  constructor(private readonly prefix: Uint8Array) {}

  /**
   * What every node an update stores starts with (P ‖ 0xff): keys that sort by version, so a
   * store holding only these is appended to. Root records and legacy nodes lie outside it.
   */
  static versionedPrefix(prefix: Uint8Array): Uint8Array {
    const out = new Uint8Array(prefix.length + 1);
    out.set(prefix, 0);
    out[prefix.length] = VERSIONED_MARK;
    return out;
  }

  nodeKeyLength(version: number): number {
    return version === 0 ? this.prefix.length + HASH_BYTES : this.prefix.length + 1 + VERSION_BYTES + HASH_BYTES;
  }

  /** The node key into `out` (exactly nodeKeyLength(version) long), for callers packing many keys into one array. */
  nodeKeyInto(hash: Uint8Array, version: number, out: Uint8Array): void {
    out.set(this.prefix, 0);
    let at = this.prefix.length;
    if (version !== 0) {
      out[at++] = VERSIONED_MARK;
      writeVersion(out, at, version);
      at += VERSION_BYTES;
    }
    out.set(hash, at);
  }

  nodeKey(hash: Uint8Array, version: number): Uint8Array {
    const key = new Uint8Array(this.nodeKeyLength(version));
    this.nodeKeyInto(hash, version, key);
    return key;
  }

  rootKey(root: Uint8Array): Uint8Array {
    const key = new Uint8Array(this.prefix.length + 1 + HASH_BYTES);
    key.set(this.prefix, 0);
    key[this.prefix.length] = ROOT_MARK;
    key.set(root, this.prefix.length + 1);
    return key;
  }
}

/**
 * A root's record: where its node is stored, and the update that made the root, whose successor
 * numbers the next update's nodes. They differ when the root is an old leaf that moved up (a tree
 * left with one key), whose node stays where it was.
 */
export interface RootRecord {
  readonly nodeVersion: number;
  readonly updateVersion: number;
}

export function encodeRootRecord(record: RootRecord): Uint8Array {
  const out = new Uint8Array(2 * VERSION_BYTES);
  writeVersion(out, 0, record.nodeVersion);
  writeVersion(out, VERSION_BYTES, record.updateVersion);
  return out;
}

/** The record, or undefined if the bytes are not one. */
export function decodeRootRecord(bytes: Uint8Array): RootRecord | undefined {
  if (bytes.length !== 2 * VERSION_BYTES) return undefined;
  const record = { nodeVersion: readVersion(bytes, 0), updateVersion: readVersion(bytes, VERSION_BYTES) };
  return record.nodeVersion <= record.updateVersion ? record : undefined;
}
