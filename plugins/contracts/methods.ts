import { defineMethods, type ReadContext } from '../../kernel/sdk.js';
import { contractAddressOf } from './app-names.js';
import { codeKey, contracts, readContract, type ContractRecord } from './store.js';

/**
 * What the contracts plugin offers other plugins: a contract's record and code (the analyzer
 * analyses a deployed contract's code and certifies it), and the operators' score of a contract
 * (decisions.md §49: `security_score` set, `score_source: operators`, `risk_score` kept), and a
 * contract's owner (names binds an `.app` name to a contract its owner deployed, decisions.md §42).
 */
export const contractsMethods = defineMethods('contracts', {
  read: {
    /** The owner of the contract deployed at `address`, or undefined when there is none. */
    async contractOwner(ctx: ReadContext, address: string): Promise<string | undefined> {
      return (await readContract(ctx.store, address))?.owner;
    },
    /**
     * The contract at `address` with its code, or undefined when there is none. A registered
     * `.app` name (decisions.md §42) stands for its contract, as everywhere a contract is named.
     */
    async contract(ctx, address: string): Promise<{ readonly record: ContractRecord; readonly code: Uint8Array } | undefined> {
      const record = await readContract(ctx.store, await contractAddressOf(ctx, address));
      if (!record) return undefined;
      const code = await ctx.store.get(codeKey(record.code_hash));
      if (code === undefined) return undefined;
      return { record, code };
    },
  },
  write: {
    /** Sets the contract's security score as the operators approved it; false when there is no such contract. */
    async setOperatorScore(ctx, address: string, securityScore: number): Promise<boolean> {
      const record = await readContract(ctx.store, await contractAddressOf(ctx, address));
      if (!record) return false;
      contracts.set(ctx.store, record.address, { ...record, security_score: securityScore, score_source: 'operators' });
      return true;
    },
  },
});
