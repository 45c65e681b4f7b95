import { forbidden, type ChainError, type ReadContext, type Validator } from '../../kernel/sdk.js';

/**
 * Analyzer operators (decisions.md §49): the `.node`s of the active validator set at the
 * operation's height, from chain state, so every validator agrees on who they are (a per-node key
 * list would fork the chain). Voting power is the self-stake the set carries.
 */
export async function activeSet(ctx: ReadContext): Promise<Validator[]> {
  return ctx.validators.at(ctx.height);
}

export async function operatorProblem(ctx: ReadContext, signer: string): Promise<ChainError | undefined> {
  if (!signer.endsWith('.node')) return forbidden(`signer ${signer} is not an analyzer operator: operators are the .node addresses of the active validator set (decisions.md §49)`);
  if (!(await activeSet(ctx)).some((v) => v.address === signer)) return forbidden(`signer ${signer} is not an analyzer operator: it is not in the active validator set at height ${ctx.height} (decisions.md §49)`);
  return undefined;
}

export interface Tally {
  /** The approvals that count: those of validators active now, in the order given. */
  readonly approvals: string[];
  readonly approvedPower: bigint;
  readonly totalPower: bigint;
  /** More than 2/3 of the active power: exactly 2/3 is not enough. */
  readonly passed: boolean;
}

/** §49: approvals of validators no longer active do not count; more than 2/3 of the active power applies the action. */
export function tally(set: readonly Validator[], approvals: readonly string[]): Tally {
  const power = new Map(set.map((v) => [v.address, v.power]));
  const counted = approvals.filter((a) => power.has(a));
  const approvedPower = counted.reduce((n, a) => n + power.get(a)!, 0n);
  const totalPower = set.reduce((n, v) => n + v.power, 0n);
  return { approvals: counted, approvedPower, totalPower, passed: totalPower > 0n && approvedPower * 3n > totalPower * 2n };
}
