import { evidenceId, verifyEvidence } from '../../kernel/consensus/evidence.js';
import type { SignatureProvider } from '../../kernel/crypto/provider.js';
import type { ConsensusEvidence, Validator } from '../../kernel/consensus/types.js';
import { ValidatorSet } from '../../kernel/consensus/validator-set.js';
import { evidenceFromJson } from '../../kernel/consensus/wire.js';
import type { SimBlock } from './app.js';

/** A change a block makes to the set counts from this many heights later (the kernel's SET_CHANGE_DELAY). */
export const SET_DELAY = 2;

/** Stakes set by the block at `atHeight` (validator index → new self-stake; 0 takes it out), as a staking transaction would. */
export interface StakeChange {
  readonly atHeight: number;
  readonly stakes: Readonly<Record<number, bigint>>;
}

/**
 * Double-sign slashing as plugins/staking does it, over the simulation's blocks: evidence a block
 * carries (verified against the set of the evidence's height, each offence once, only within
 * `windowHeights`) takes `fractionBps` of the validator's stake and jails it for `jailHeights`;
 * it returns by itself after, with what is left.
 */
export interface SlashingRule {
  readonly fractionBps: bigint;
  readonly jailHeights: number;
  readonly windowHeights: number;
}

/**
 * The validator set of every height, derived by one node from the blocks it decided alone (no
 * shared state between nodes): correct nodes that decide the same blocks derive the same sets,
 * which is what the kernel's endBlock validator updates rely on.
 */
export class SetSchedule {
  private readonly stakes = new Map<string, bigint>();
  private readonly jailedUntil = new Map<string, number>();
  private readonly keys = new Map<string, string>();
  private readonly sets = new Map<number, ValidatorSet>();
  /** Offences applied, by evidence id; and at which height each was. */
  readonly applied = new Map<string, { height: number; validator: string; amount: bigint }>();
  private decided = 0;

  constructor(
    genesis: readonly Validator[],
    private readonly changes: readonly StakeChange[],
    private readonly slashing: SlashingRule | undefined,
    private readonly addressOf: (index: number) => string,
    private readonly chainId: string,
    private readonly provider: SignatureProvider,
  ) {
    for (const v of genesis) {
      this.stakes.set(v.address, v.power);
      this.keys.set(v.address, v.public_key);
    }
    const set = this.active(0);
    for (let h = 1; h <= SET_DELAY; h++) this.sets.set(h, set);
  }

  /** The set of `height`: known up to the last decided height + SET_DELAY. */
  setAt(height: number): ValidatorSet {
    const set = this.sets.get(height);
    if (set === undefined) throw new Error(`the set of height ${height} is not known yet (decided ${this.decided})`);
    return set;
  }

  /** The block decided at the next height: its stake changes and evidence, then the set of height + SET_DELAY. */
  commit(block: SimBlock): void {
    const h = block.height;
    if (h !== this.decided + 1) throw new Error(`set schedule: block ${h} after ${this.decided}`);
    for (const c of this.changes) {
      if (c.atHeight !== h) continue;
      for (const [index, stake] of Object.entries(c.stakes)) this.stakes.set(this.addressOf(Number(index)), stake);
    }
    if (this.slashing !== undefined) {
      for (const raw of block.evidence) {
        const ev = evidenceFromJson(raw)!;
        const validator = ev.voteA.vote.validator;
        const stake = this.stakes.get(validator) ?? 0n;
        const amount = (stake * this.slashing.fractionBps) / 10_000n;
        this.stakes.set(validator, stake - amount);
        this.jailedUntil.set(validator, h + this.slashing.jailHeights);
        this.applied.set(evidenceId(ev), { height: h, validator, amount });
      }
    }
    this.decided = h;
    this.sets.set(h + SET_DELAY, this.active(h));
  }

  /** Why a block's evidence at `height` is not acceptable, or null (every correct node judges alike). */
  evidenceProblem(items: readonly unknown[], height: number): string | null {
    if (items.length > 0 && this.slashing === undefined) return 'this chain does not slash';
    const seen = new Set<string>();
    for (const raw of items) {
      const ev = evidenceFromJson(raw);
      if (ev === null) return 'malformed evidence';
      const id = evidenceId(ev);
      if (seen.has(id) || this.applied.has(id)) return `evidence ${id} already applied`;
      seen.add(id);
      const at = ev.voteA.vote.height;
      if (at > height || at < height - this.slashing!.windowHeights || at < 1) return `evidence of height ${at} is outside the window at ${height}`;
      const check = verifyEvidence(ev, this.setAt(at), this.chainId, this.provider);
      if (!check.ok) return check.reason;
    }
    return null;
  }

  /** Evidence a proposer at `height` may include: verified, not applied, inside the window. */
  proposable(found: readonly ConsensusEvidence[], height: number, toJson: (e: ConsensusEvidence) => unknown): unknown[] {
    if (this.slashing === undefined) return [];
    const out: unknown[] = [];
    for (const ev of found) {
      const item = toJson(ev);
      if (this.evidenceProblem([...out, item], height) === null) out.push(item);
      if (out.length === 4) break;
    }
    return out;
  }

  /** The set after the block at `height`: staked, not jailed at that height (plugins/staking/active-set.ts). */
  private active(height: number): ValidatorSet {
    const members: Validator[] = [];
    for (const [address, power] of [...this.stakes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (power <= 0n || (this.jailedUntil.get(address) ?? 0) > height) continue;
      members.push({ address, public_key: this.keys.get(address)!, power });
    }
    return new ValidatorSet(members);
  }
}
