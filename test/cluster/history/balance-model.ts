import type { Model } from './model.js';

/**
 * One account's balance as a register that transfers change and reads observe: the object whose
 * reads must be linearizable. A transfer's `delta` is what it moves for this account (credit
 * positive, debit and fee negative); an unconfirmed transfer (no answer, or an answer that does
 * not say) may have been applied or not. A read answers the balance it saw.
 */
export type BalanceInput =
  | { readonly kind: 'transfer'; readonly account: string; readonly delta: bigint }
  | { readonly kind: 'read'; readonly account: string };

/** A transfer answers whether it was confirmed committed; a read answers the balance. */
export type BalanceOutput = { readonly kind: 'transfer'; readonly committed: boolean } | { readonly kind: 'read'; readonly balance: bigint };

/** The model, each account starting at its balance in `initial` (0 when absent). */
export function balanceModel(initial: ReadonlyMap<string, bigint>): Model<bigint, BalanceInput, BalanceOutput> {
  return {
    name: 'per-account balance',
    init: (account) => initial.get(account) ?? 0n,
    key: (s) => s.toString(),
    partition: (input) => input.account,
    step(state, input, output) {
      if (input.kind === 'read') {
        if (output === undefined) return [state];
        return output.kind === 'read' && output.balance === state ? [state] : [];
      }
      if (output === undefined) return [state, state + input.delta];
      if (output.kind !== 'transfer') return [];
      return output.committed ? [state + input.delta] : [state];
    },
  };
}
