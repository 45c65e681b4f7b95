import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation, forbidden, isChainError, notFound, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import { stakingMethods } from '../../staking/public.js';
import { GOVERNANCE_TARGET } from '../params.js';
import { voteCast } from '../events.js';
import { proposals, votes, type ProposalRecord } from '../store.js';

export const PROPOSAL_ID = '^[1-9][0-9]{0,14}$';

/**
 * Part 1, Governance 4: only an address with self-stake votes, and only if that stake was bonded
 * before the proposal was created; one vote per address, final; the window still open (the tally
 * runs at the end of block `end_height`, so a vote in that block counts).
 */
async function voteProblem(ctx: ReadContext, id: number, voter: string): Promise<{ proposal: ProposalRecord; weight: bigint } | ChainError> {
  const proposal = await proposals.get(ctx.store, id);
  if (!proposal) return notFound(`proposal ${id} not found`);
  if (proposal.status !== 'active' || ctx.height > proposal.end_height) return badRequest(`proposal ${id} is closed: its voting window ended at height ${proposal.end_height}`);
  const stake = await ctx.methods.of(stakingMethods).selfStake(voter);
  if (!stake) return forbidden(`${voter} has no self-stake: only addresses with self-stake vote`);
  if (stake.bonded_height >= proposal.created_height) return forbidden(`${voter}'s self-stake was bonded at height ${stake.bonded_height}, not before proposal ${id} was created (height ${proposal.created_height}): it cannot vote on it`);
  // The weight is the whole self-stake now: stake added since the proposal was created would vote
  // too (coins unstaked after one vote and added to another address's older stake, counted twice).
  if (stake.added_height >= proposal.created_height) return forbidden(`${voter} added self-stake at height ${stake.added_height}, after proposal ${id} was created (height ${proposal.created_height}): stake added after a proposal cannot vote on it (vote before adding stake)`);
  if (await votes.has(ctx.store, id, voter)) return badRequest(`${voter} has already voted on proposal ${id}: one vote per address, final`);
  return { proposal, weight: stake.amount };
}

/**
 * `POST /api/v1/governance/:id/vote` (part 1, Governance 4). The id comes from the path. Part 1's
 * body is `voter`, `accept` and the signature, and a ch-tx-v3/v4 payload is that body (decisions.md
 * §7, §94), so a v3/v4 signature may leave `id` out (`uncoveredPathFields`); one that carries it is
 * bound to that proposal (plugins/governance/README.md, "Signing a vote").
 */
export const vote = defineOperation({
  name: 'vote',
  description: 'casts a final, stake-weighted yes or no on an active proposal',
  routes: [{ method: 'POST', path: '/api/v1/governance/:id/vote' }],
  socketMethod: 'cast_vote',
  uncoveredPathFields: ['id'],
  schema: Type.Object({ id: Type.String({ pattern: PROPOSAL_ID }), voter: Type.String(), accept: Type.Boolean() }, { additionalProperties: false }),
  signsFor: GOVERNANCE_TARGET,
  value: null,
  gas: 50,
  async check(ctx, op) {
    const r = await voteProblem(ctx, Number(op.body.id), op.actor);
    return isChainError(r) ? r : undefined;
  },
  async execute(ctx, op) {
    const id = Number(op.body.id);
    const r = await voteProblem(ctx, id, op.actor);
    if (isChainError(r)) throw r;
    // Part 1, Governance 4: the weight is the self-stake now, when the vote is applied.
    votes.set(ctx.store, id, op.actor, { voter: op.actor, accept: op.body.accept, weight: r.weight, height: ctx.block.height, tx_hash: op.txHash });
    const p = r.proposal;
    proposals.set(ctx.store, p.id, { ...p, votes: p.votes + 1, yes_weight: p.yes_weight + (op.body.accept ? r.weight : 0n), no_weight: p.no_weight + (op.body.accept ? 0n : r.weight) });
    voteCast.emit(ctx, { id, voter: op.actor, accept: op.body.accept, weight: r.weight, tx_hash: op.txHash });
  },
});
