import type { Validator } from '../consensus/types.js';
import type { StateSource } from '../state/overlay.js';
import { SET_CHANGE_DELAY, ValidatorHistory, isValidatorSetKey } from '../state/validator-history.js';
import { validatorSetHash } from './block-hash.js';

/**
 * The validator sets committed state derives, height by height: what a proposal's header commits
 * to (`hashesAt`), who signs a height's votes and evidence (`at`, `validatorAt`). The history is
 * read again only after a block (or a snapshot) that wrote the set or its history, not once per
 * block: with 150 validators a read is ~600 KB.
 */
export class ValidatorSets {
  private history: Promise<ValidatorHistory> | null = null;
  /** `validators_hash` per height: a set of 150 keys is ~300 KB of text to hash. */
  private readonly setHashes = new Map<number, string>();

  constructor(
    private readonly state: StateSource,
    private readonly headHeight: () => number,
  ) {}

  /**
   * The header's hashes of the sets deciding `height` and `height + 1`, both derived from committed
   * state (the set of head + 2 is fixed by then, SET_CHANGE_DELAY), so every validator computes
   * the same two hashes for a proposal.
   */
  async hashesAt(height: number): Promise<{ validators_hash: string; next_validators_hash: string }> {
    const [current, next] = await Promise.all([this.setHashAt(height), this.setHashAt(height + 1)]);
    return { validators_hash: current, next_validators_hash: next };
  }

  /** A height's set never changes once derivable (changes take effect SET_CHANGE_DELAY after the block that makes them), so its hash is remembered. */
  private async setHashAt(height: number): Promise<string> {
    const known = this.setHashes.get(height);
    if (known !== undefined) return known;
    const hash = validatorSetHash(await this.at(height));
    if (this.setHashes.size >= 16) this.setHashes.delete(this.setHashes.keys().next().value!);
    this.setHashes.set(height, hash);
    return hash;
  }

  /**
   * The set in force at `height`, as committed state derives it: known up to
   * head + SET_CHANGE_DELAY, and back as far as the history is kept (`slash_evidence_window`).
   */
  async at(height: number): Promise<Validator[]> {
    this.checkDerivable(height);
    return (await this.read()).setAt(height);
  }

  /** The record `address` held at `height`; undefined when it was not in that height's set. */
  async validatorAt(address: string, height: number): Promise<Validator | undefined> {
    this.checkDerivable(height);
    return (await this.read()).validatorAt(address, height);
  }

  private checkDerivable(height: number): void {
    if (height > this.headHeight() + SET_CHANGE_DELAY) throw new RangeError(`the validator set of height ${height} is not known before block ${height - SET_CHANGE_DELAY} is committed`);
  }

  private read(): Promise<ValidatorHistory> {
    if (this.history === null) {
      const read = ValidatorHistory.read(this.state);
      this.history = read;
      // A failed read is not remembered.
      read.catch(() => {
        if (this.history === read) this.history = null;
      });
    }
    return this.history;
  }

  /** After a block's write: a read that started before it is dropped with the old history. */
  committed(changedKeys: Iterable<string>): void {
    for (const key of changedKeys) {
      if (isValidatorSetKey(key)) {
        this.history = null;
        break;
      }
    }
    // A remembered hash would be wrong only if the set of a derivable height changed; drop them with the history anyway.
    if (this.history === null) this.setHashes.clear();
  }

  /** After the whole state was replaced (a snapshot installed). */
  forget(): void {
    this.history = null;
    this.setHashes.clear();
  }
}
