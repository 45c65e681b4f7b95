import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation, notFound, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import { contractsMethods } from '../../contracts/public.js';
import { activeSet, operatorProblem, tally } from '../operators.js';
import { scoreApprovals } from '../store.js';

export const SCORE_ADDRESS = 'chain:system.score';
export const SCORE_GAS = 20;

export const ScoreBody = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 128, description: 'the contract (the path parameter)' }),
    signer: Type.String({ minLength: 1, maxLength: 128, description: 'the approving operator: a .node of the active validator set, acting through its owner' }),
    security_score: Type.Integer({ minimum: 0, maximum: 100, description: 'the score the operators set' }),
  },
  { additionalProperties: false },
);

type Body = typeof ScoreBody.static;

/** The contract's own address (a registered `.app` name stands for it, §42): approvals of one contract are one tally. */
async function contractOf(ctx: ReadContext, address: string): Promise<string | undefined> {
  return (await ctx.methods.of(contractsMethods).contract(address))?.record.address;
}

async function problem(ctx: ReadContext, signer: string, b: Body): Promise<ChainError | undefined> {
  const address = await contractOf(ctx, b.address);
  if (address === undefined) return notFound(`no contract at ${b.address}`);
  const rec = await scoreApprovals.get(ctx.store, address, b.security_score);
  if (rec?.approvals.includes(signer)) return badRequest(`${signer} has already approved security_score ${b.security_score} for ${b.address}`);
  return undefined;
}

/**
 * `PATCH /api/v1/contracts/:address/score` (decisions.md §49): one operator's approval of that
 * contract with that score; applied (the contract's `security_score` set, `score_source:
 * operators`, its `risk_score` kept) in the block where active approvals pass 2/3 of the power.
 */
export const scoreOperation = defineOperation({
  name: 'score',
  description: "an analyzer operator approves a contract's security score (decisions.md §49)",
  routes: [{ method: 'PATCH', path: '/api/v1/contracts/:address/score', nodeOnly: true }],
  schema: ScoreBody,
  actor: 'signer',
  // Part 1's body is `security_score` (§49: and `signer`), and a v3/v4 payload is that body (§94):
  // the path's address may be left out of it; a body that carries it is bound to that contract.
  uncoveredPathFields: ['address'],
  signsFor: SCORE_ADDRESS,
  value: null,
  gas: SCORE_GAS,
  mainKeyOnly: 'approve as an analyzer operator',
  socketMethod: 'update_contract_score',
  async check(ctx, op) {
    return (await operatorProblem(ctx, op.actor)) ?? (await problem(ctx, op.actor, op.body));
  },
  async execute(ctx, op) {
    const b = op.body;
    const address = await contractOf(ctx, b.address);
    if (address === undefined) throw notFound(`no contract at ${b.address}`);
    const rec = await scoreApprovals.get(ctx.store, address, b.security_score);
    const t = tally(await activeSet(ctx), [...(rec?.approvals ?? []), op.actor]);
    if (!t.passed) {
      scoreApprovals.set(ctx.store, address, b.security_score, { address, security_score: b.security_score, approvals: t.approvals });
      return;
    }
    scoreApprovals.delete(ctx.store, address, b.security_score);
    if (!(await ctx.methods.of(contractsMethods).setOperatorScore(address, b.security_score))) throw notFound(`no contract at ${b.address}`);
  },
});
