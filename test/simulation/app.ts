import { canonicalJson, type JsonValue } from '../../kernel/codec/json.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { toHex } from '../../kernel/codec/hex.js';
import type { BlockCodec } from '../../kernel/consensus/wire.js';

/**
 * The trivial application of the simulation: a block names its height and its parent's hash and
 * carries a payload derived from the run's seed. Committing appends to a per-node log. The
 * parent link makes validateValue meaningful: a correct node accepts only blocks that extend
 * exactly the chain it has committed.
 */
export interface SimBlock {
  readonly height: number;
  readonly round: number;
  readonly proposer: string;
  /** `0x` hash of the block committed at height - 1 (zeros at height 1). */
  readonly prevHash: string;
  readonly payload: string;
  /** Set by the invalid-block Byzantine proposer; correct nodes reject such blocks. */
  readonly invalid: boolean;
  /** Double-sign evidence (consensus wire form) the proposer includes, for slashing (set-schedule.ts). */
  readonly evidence: readonly unknown[];
}

export const GENESIS_HASH = '0x' + '00'.repeat(32);

export function isSimBlock(x: unknown): x is SimBlock {
  if (typeof x !== 'object' || x === null) return false;
  const b = x as Record<string, unknown>;
  return (
    Number.isSafeInteger(b['height']) &&
    Number.isSafeInteger(b['round']) &&
    typeof b['proposer'] === 'string' &&
    typeof b['prevHash'] === 'string' &&
    typeof b['payload'] === 'string' &&
    typeof b['invalid'] === 'boolean' &&
    Array.isArray(b['evidence']) &&
    Object.keys(b).length === 7
  );
}

export function hashSimBlock(block: unknown): Uint8Array {
  // Anything that is not a block hashes to a value no honest proposal carries.
  return isSimBlock(block) ? sha3(canonicalJson(block)) : sha3('not-a-sim-block');
}

export function makeBlock(seed: number, height: number, round: number, proposer: string, prevHash: string, invalid: boolean, salt = '', evidence: readonly unknown[] = []): SimBlock {
  const payload = toHex(sha3(`sim-payload|${seed}|${height}|${round}|${proposer}|${salt}`)).slice(0, 32);
  return { height, round, proposer, prevHash, payload, invalid, evidence };
}

export const simBlockCodec: BlockCodec = {
  encode(block: unknown) {
    if (!isSimBlock(block)) throw new TypeError('not a SimBlock');
    return { height: block.height, round: block.round, proposer: block.proposer, prevHash: block.prevHash, payload: block.payload, invalid: block.invalid, evidence: block.evidence as JsonValue[] };
  },
  decode(json: unknown): unknown {
    return isSimBlock(json) ? json : undefined;
  },
};
