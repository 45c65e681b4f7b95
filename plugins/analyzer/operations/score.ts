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

async function problem(ctx: ReadContext, signer: string, b: Body): Promise<ChainError | undefined> {
  if (!(await ctx.methods.of(contractsMethods).contract(b.address))) return notFound(`no contract at ${b.address}`);
  const rec = await scoreApprovals.get(ctx.store, b.address, b.security_score);
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
  pathFields: ['address'],
  signsFor: SCORE_ADDRESS,
  value: null,
  gas: SCORE_GAS,
  mainKeyOnly: 'approve as an analyzer operator',
  async check(ctx, op) {
    return (await operatorProblem(ctx, op.actor)) ?? (await problem(ctx, op.actor, op.body));
  },
  async execute(ctx, op) {
    const b = op.body;
    const rec = await scoreApprovals.get(ctx.store, b.address, b.security_score);
    const t = tally(await activeSet(ctx), [...(rec?.approvals ?? []), op.actor]);
    if (!t.passed) {
      scoreApprovals.set(ctx.store, b.address, b.security_score, { address: b.address, security_score: b.security_score, approvals: t.approvals });
      return;
    }
    scoreApprovals.delete(ctx.store, b.address, b.security_score);
    if (!(await ctx.methods.of(contractsMethods).setOperatorScore(b.address, b.security_score))) throw notFound(`no contract at ${b.address}`);
  },
});
