import type { Validator } from '../consensus/types.js';
import type { StateSource } from './overlay.js';
import { ValidatorHistory } from './validator-history.js';
import { readValidatorSet } from './validator-set.js';

/**
 * The consensus validator set as plugins read it (`ctx.validators`), from the state the context
 * reads, so that no plugin decodes the kernel's `vset` records itself. Each answer is in address
 * order with power and consensus key, only validators of positive power.
 */
export interface ValidatorSetReader {
  /**
   * The set as the last endBlock left it: what a plugin that proposes set changes diffs against
   * (staking), and the set whose power decides a plugin's own votes (ai-records). It signs from
   * two heights after the block that made it (decisions.md §22).
   */
  latest(): Promise<Validator[]>;
  /**
   * The set in force at `height`: the one that signed that block. Known for the heights the
   * kernel's validator history covers (back to `slash_evidence_window` blocks before the context's
   * height, and up to two heights ahead of it).
   */
  at(height: number): Promise<Validator[]>;
}

export function validatorSetReader(source: StateSource): ValidatorSetReader {
  return {
    latest: () => readValidatorSet(source),
    at: async (height) => {
      if (!Number.isSafeInteger(height) || height < 0) throw new Error(`ctx.validators.at: ${height} is not a height`);
      return (await ValidatorHistory.read(source)).setAt(height);
    },
  };
}
