import { parseHex, toHex } from '../codec/hex.js';
import { sha3 } from '../crypto/hash.js';
import { isSafeNonNegative } from './bytes.js';

/**
 * The double-sign guard of a validator key (CometBFT's "last sign state"). A validator that
 * crashes and restarts must never sign two different messages for one (height, round, step):
 * that is exactly the equivocation that gets it slashed. The guard is consulted before every
 * signature and its state is plain JSON so the host can persist it (with fsync) before the
 * signed message leaves the process.
 *
 * Rules, for a request to sign at (height, round, step):
 *   - height below the recorded height: refused (the key has moved on).
 *   - (round, step) already signed at this height: the identical message gets the recorded
 *     signature back (idempotent replay after a restart); any other message is refused.
 *   - (round, step) not signed yet but below the highest (round, step) signed at this height:
 *     refused. Algorithm 1 only ever signs forward, so a backward request means lost state.
 *   - otherwise: allowed.
 */

export type SignStep = 'proposal' | 'prevote' | 'precommit';

const STEP_RANK: Record<SignStep, number> = { proposal: 1, prevote: 2, precommit: 3 };

/** Entries kept per height; older ones may be dropped because the regression rule still covers them. */
const MAX_ENTRIES = 192;

export interface LastSignedEntry {
  readonly round: number;
  readonly step: SignStep;
  /** Lowercase hex of SHA3-256 of the sign bytes: identifies the exact message signed. */
  readonly signBytesHash: string;
  /** What was signed for, for operators reading the file: block hash hex or `nil`. */
  readonly target: string;
  /** Lowercase hex of the signature, returned again for an identical request. */
  readonly signature: string;
}

export interface LastSignedState {
  readonly version: 1;
  /** Height of the entries; 0 with no entries means the key never signed. */
  readonly height: number;
  readonly entries: readonly LastSignedEntry[];
}

export type GuardDecision =
  | { readonly kind: 'sign' }
  | { readonly kind: 'reuse'; readonly signature: Uint8Array }
  | { readonly kind: 'refuse'; readonly reason: string };

function compareSlot(a: { round: number; step: SignStep }, b: { round: number; step: SignStep }): number {
  return a.round !== b.round ? a.round - b.round : STEP_RANK[a.step] - STEP_RANK[b.step];
}

function isStep(x: unknown): x is SignStep {
  return x === 'proposal' || x === 'prevote' || x === 'precommit';
}

export class LastSignedGuard {
  private height: number;
  private entries: LastSignedEntry[];

  constructor(state?: LastSignedState) {
    this.height = state?.height ?? 0;
    this.entries = state === undefined ? [] : [...state.entries].sort(compareSlot);
  }

  /** Strict parse of persisted state; throws on any defect rather than guessing (guessing could double-sign). */
  static fromJSON(json: unknown): LastSignedGuard {
    if (typeof json !== 'object' || json === null) throw new Error('last-signed state must be an object');
    const o = json as Record<string, unknown>;
    if (o['version'] !== 1) throw new Error('unsupported last-signed state version');
    const height = o['height'];
    if (!isSafeNonNegative(height)) throw new Error('last-signed height must be a non-negative integer');
    const raw = o['entries'];
    if (!Array.isArray(raw)) throw new Error('last-signed entries must be an array');
    const entries: LastSignedEntry[] = raw.map((e: unknown, i: number) => {
      if (typeof e !== 'object' || e === null) throw new Error(`entry ${i} must be an object`);
      const r = e as Record<string, unknown>;
      const { round, step, signBytesHash, target, signature } = r;
      if (!isSafeNonNegative(round)) throw new Error(`entry ${i}: bad round`);
      if (!isStep(step)) throw new Error(`entry ${i}: bad step`);
      if (typeof signBytesHash !== 'string' || parseHex(signBytesHash, 32) === null) throw new Error(`entry ${i}: bad signBytesHash`);
      if (typeof target !== 'string') throw new Error(`entry ${i}: bad target`);
      if (typeof signature !== 'string' || parseHex(signature) === null) throw new Error(`entry ${i}: bad signature`);
      return { round, step, signBytesHash, target, signature };
    });
    return new LastSignedGuard({ version: 1, height, entries });
  }

  toJSON(): LastSignedState {
    return { version: 1, height: this.height, entries: this.entries.map((e) => ({ ...e })) };
  }

  /**
   * The lowest round of `height` at which every step may still be signed: 0 at a height the key
   * has not signed at, one past the highest round signed at the recorded height, null below it.
   */
  openRound(height: number): number | null {
    if (height < this.height) return null;
    const highest = this.entries[this.entries.length - 1];
    return height > this.height || highest === undefined ? 0 : highest.round + 1;
  }

  check(height: number, round: number, step: SignStep, signBytes: Uint8Array): GuardDecision {
    return this.decide(height, round, step, toHex(sha3(signBytes)));
  }

  /** Records a signature that `check` allowed; call before releasing the signed message. */
  record(height: number, round: number, step: SignStep, signBytes: Uint8Array, target: string, signature: Uint8Array): void {
    const digest = toHex(sha3(signBytes));
    const decision = this.decide(height, round, step, digest);
    if (decision.kind === 'refuse') throw new Error(`refusing to record: ${decision.reason}`);
    if (decision.kind === 'reuse') return;
    if (height > this.height) {
      this.height = height;
      this.entries = [];
    }
    this.entries.push({ round, step, signBytesHash: digest, target, signature: toHex(signature) });
    this.entries.sort(compareSlot);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
  }

  private decide(height: number, round: number, step: SignStep, digest: string): GuardDecision {
    if (height < this.height) return { kind: 'refuse', reason: `height ${height} is below last signed height ${this.height}` };
    if (height > this.height) return { kind: 'sign' };
    const slot = { round, step };
    const found = this.entries.find((e) => compareSlot(e, slot) === 0);
    if (found !== undefined) {
      if (found.signBytesHash === digest) return { kind: 'reuse', signature: parseHex(found.signature) as Uint8Array };
      return { kind: 'refuse', reason: `conflicting ${step} at height ${height} round ${round}: already signed ${found.target}` };
    }
    const highest = this.entries[this.entries.length - 1];
    if (highest !== undefined && compareSlot(slot, highest) < 0) {
      return { kind: 'refuse', reason: `${step} at round ${round} is behind last signed ${highest.step} at round ${highest.round}` };
    }
    return { kind: 'sign' };
  }
}
