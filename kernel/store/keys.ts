import { utf8Bytes } from '../codec/utf8.js';
import { NodeKeys } from '../state/tree/index.js';

/**
 * The LevelDB key layout. Every record family has a short ASCII prefix; heights are 8-byte
 * big-endian so byte order is height order and "newest first" is a reverse range scan.
 */
export const PREFIX = {
  meta: 'm/',
  block: 'b/',
  blockByHash: 'h/',
  commit: 'c/',
  tx: 't/',
  txByAddress: 'a/',
  txGlobal: 'g/',
  totals: 'at/',
  state: 's/',
  treeNode: 'n/',
  validatorActivity: 'va/',
  validatorWindow: 'vw/',
  event: 'ev/',
  pluginIndex: 'x/',
  /** Light-client commit headers the node signs and collects (kernel/replica/light-client-headers.ts). */
  lightClientHeader: 'lh/',
  lightClientSignature: 'ls/',
  lightClientMeta: 'lm/',
} as const;

/**
 * The state tree's versioned nodes (`n/` 0xff …, keyed by version): what a data directory laid out
 * `tree-nodes-apart` keeps in its tree store (chain-stores.ts), and the range settled once genesis
 * or a snapshot install has written a whole tree (`ChainStore.settleTree`). Root records and
 * legacy nodes lie below it.
 */
export const TREE_VERSIONED_NODES = NodeKeys.versionedPrefix(utf8Bytes(PREFIX.treeNode));

/*
 * Written byte by byte: a DataView over a small array's `.buffer` moves that array's bytes off
 * the heap and allocates the view, and several keys are built per transaction at every commit.
 */
function putU32(b: Uint8Array, at: number, n: number): void {
  b[at] = n >>> 24;
  b[at + 1] = n >>> 16;
  b[at + 2] = n >>> 8;
  b[at + 3] = n;
}

/** Big-endian; `n` is a safe non-negative integer (heights, counts). */
export function u64(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`u64 key part must be a safe non-negative integer, got ${n}`);
  const b = new Uint8Array(8);
  putU32(b, 0, Math.floor(n / 2 ** 32));
  putU32(b, 4, n >>> 0);
  return b;
}

export function u32(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 key part must be an integer in [0, 2^32), got ${n}`);
  const b = new Uint8Array(4);
  putU32(b, 0, n);
  return b;
}

export function readU64(b: Uint8Array, offset = 0): number {
  return Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(offset));
}

export function concat(...parts: Array<Uint8Array | string>): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? utf8Bytes(p) : p));
  const out = new Uint8Array(bytes.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of bytes) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** The smallest key greater than every key that starts with `prefix`. */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.slice(0, i + 1);
    }
  }
  return concat(prefix, new Uint8Array([0xff]));
}

export const metaKey = (name: string): Uint8Array => concat(PREFIX.meta, name);
export const blockKey = (height: number): Uint8Array => concat(PREFIX.block, u64(height));
export const blockByHashKey = (hash: string): Uint8Array => concat(PREFIX.blockByHash, hash);
export const commitKey = (height: number): Uint8Array => concat(PREFIX.commit, u64(height));
export const txKey = (hash: string): Uint8Array => concat(PREFIX.tx, hash);
export const totalsKey = (address: string): Uint8Array => concat(PREFIX.totals, address);
export const stateKey = (key: string): Uint8Array => concat(PREFIX.state, key);
/** Address index entries: `a/<address>\0<height><index>`; the NUL keeps one address's range closed. */
export const txByAddressPrefix = (address: string): Uint8Array => concat(PREFIX.txByAddress, address, new Uint8Array([0]));
export const txByAddressKey = (address: string, height: number, index: number): Uint8Array => concat(txByAddressPrefix(address), u64(height), u32(index));
export const txGlobalKey = (height: number, index: number): Uint8Array => concat(PREFIX.txGlobal, u64(height), u32(index));
/** A validator's node-local activity figures (`store/validator-activity.ts`); not state. */
export const validatorActivityKey = (address: string): Uint8Array => concat(PREFIX.validatorActivity, address);
/** The validators whose precommit the certificate of block `height` carries, kept for the trust window. */
export const validatorWindowKey = (height: number): Uint8Array => concat(PREFIX.validatorWindow, u64(height));
/** A block's events in order: `ev/<height><index>`, so one range scan reads a block's list. */
export const blockEventsPrefix = (height: number): Uint8Array => concat(PREFIX.event, u64(height));
export const eventKey = (height: number, index: number): Uint8Array => concat(blockEventsPrefix(height), u32(index));
/** A plugin's node-local index entry; `key` is `<plugin>/<its key>` (plugin names hold no `/`). */
export const pluginIndexKey = (key: string): Uint8Array => concat(PREFIX.pluginIndex, key);
