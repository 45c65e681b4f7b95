import { canonicalJson, type JsonValue } from '../../kernel/codec/json.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { toHex } from '../../kernel/codec/hex.js';
import type { BlockCodec } from '../../kernel/consensus/wire.js';
import { isSimAction, type SimAction } from './sim-app-state.js';

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
  /** The proposer's application state root after height - 1 (sim-app-state.ts): a node whose own differs refuses the block. */
  readonly prevStateRoot: string;
  /** Governance outcomes the block applies at its end (a parameter change, a plugin schedule change). */
  readonly actions: readonly SimAction[];
}

/** What the application part of a block is built from. */
export interface BlockApp {
  readonly prevStateRoot: string;
  readonly actions: readonly SimAction[];
  /** Length of the payload: the `sim_payload_chars` parameter in force. */
  readonly payloadChars: number;
}

export const NO_APP: BlockApp = { prevStateRoot: '0x', actions: [], payloadChars: 32 };

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
    typeof b['prevStateRoot'] === 'string' &&
    Array.isArray(b['actions']) &&
    (b['actions'] as unknown[]).every(isSimAction) &&
    Object.keys(b).length === 9
  );
}

export function hashSimBlock(block: unknown): Uint8Array {
  // Anything that is not a block hashes to a value no honest proposal carries.
  return isSimBlock(block) ? sha3(canonicalJson(block)) : sha3('not-a-sim-block');
}

export function makeBlock(seed: number, height: number, round: number, proposer: string, prevHash: string, invalid: boolean, salt = '', evidence: readonly unknown[] = [], app: BlockApp = NO_APP): SimBlock {
  const payload = toHex(sha3(`sim-payload|${seed}|${height}|${round}|${proposer}|${salt}`)).slice(0, app.payloadChars);
  return { height, round, proposer, prevHash, payload, invalid, evidence, prevStateRoot: app.prevStateRoot, actions: app.actions };
}

export const simBlockCodec: BlockCodec = {
  encode(block: unknown) {
    if (!isSimBlock(block)) throw new TypeError('not a SimBlock');
    return { height: block.height, round: block.round, proposer: block.proposer, prevHash: block.prevHash, payload: block.payload, invalid: block.invalid, evidence: block.evidence as JsonValue[], prevStateRoot: block.prevStateRoot, actions: block.actions.map((a) => ({ ...a })) };
  },
  decode(json: unknown): unknown {
    return isSimBlock(json) ? json : undefined;
  },
};
