import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../../kernel/sdk.js';
import { stakingMethods } from '../../staking/public.js';
import { GOVERNANCE_TARGET, PROPOSE_BASE_GAS } from '../params.js';
import { proposalKind, proposalProblem, proposalTextGas, votingDuration } from '../rules.js';
import { proposalCreated } from '../events.js';
import { nextProposalId, writeNewProposal } from '../store.js';

/**
 * `POST /api/v1/governance/propose` (part 1, Governance 1–3): a proposal, created in consensus at
 * the block that includes it, open for `voting_duration` blocks and tallied at the end of block
 * creation + voting_duration (decisions.md §25), against the total self-stake recorded here (§98).
 */
export const propose = defineOperation({
  name: 'propose',
  description: 'files a governance proposal (text or PARAM_CHANGE)',
  routes: [{ method: 'POST', path: '/api/v1/governance/propose' }],
  socketMethod: 'create_proposal',
  schema: Type.Object(
    {
      proposer: Type.String(),
      title: Type.String(),
      description: Type.Optional(Type.String()),
      kind: Type.String(),
      payload: Type.Optional(Type.Record(Type.String(), Type.String())),
      voting_duration: Type.Optional(Type.Integer()),
    },
    { additionalProperties: false },
  ),
  signsFor: GOVERNANCE_TARGET,
  value: null,
  gas: PROPOSE_BASE_GAS,
  // Issue 29: the text is priced, at admission and in the block alike (the kernel adds it to the base).
  bodyGas: proposalTextGas,
  check: (ctx, op) => proposalProblem(ctx, op.body, ctx.height),
  async execute(ctx, op) {
    const id = await nextProposalId(ctx.store);
    const duration = votingDuration(op.body);
    const height = ctx.block.height;
    writeNewProposal(ctx.store, {
      id,
      proposer: op.actor,
      title: op.body.title,
      description: op.body.description ?? '',
      kind: proposalKind(op.body.kind),
      payload: op.body.payload ?? {},
      voting_duration: duration,
      created_height: height,
      end_height: height + duration,
      quorum_bps: await ctx.params.get('quorum_bps'),
      threshold_bps: await ctx.params.get('threshold_bps'),
      status: 'active',
      yes_weight: 0n,
      no_weight: 0n,
      votes: 0,
      // decisions.md §98: the quorum is measured against the self-stake that may vote on it, the
      // total when this block began; voters who unstake later do not shrink it.
      total_stake: await ctx.methods.of(stakingMethods).totalSelfStakeAtBlockStart(),
      applied: null,
      apply_error: null,
      tx_hash: op.txHash,
    });
    proposalCreated.emit(ctx, { id, proposer: op.actor, kind: op.body.kind, title: op.body.title, end_height: height + duration, tx_hash: op.txHash });
  },
});
