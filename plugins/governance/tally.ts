import { changeSchedule, isChainError, readPluginSchedule, type EndBlockResult, type PluginScheduleEntry, type WriteContext } from '../../kernel/sdk.js';
import { stakingMethods } from '../staking/public.js';
import { parseParamChange } from './rules.js';
import { proposalClosed } from './events.js';
import { endingAt, proposals, writeClosedProposal, type ProposalRecord } from './store.js';

const BPS = 10_000n;

/**
 * Part 1, Governance 5: passed when the weight cast (yes + no) is at least `quorum_bps` of the
 * total self-stake and yes is more than `threshold_bps` of the weight cast. Integer arithmetic
 * only: both sides are multiplied out instead of divided.
 */
export function outcome(p: Pick<ProposalRecord, 'yes_weight' | 'no_weight' | 'quorum_bps' | 'threshold_bps'>, totalStake: bigint): 'passed' | 'rejected' {
  const cast = p.yes_weight + p.no_weight;
  const quorum = cast > 0n && cast * BPS >= p.quorum_bps * totalStake;
  const threshold = p.yes_weight * BPS > p.threshold_bps * cast;
  return quorum && threshold ? 'passed' : 'rejected';
}

/**
 * The tally in consensus (decisions.md §25): at the end of the block whose height is a proposal's
 * creation height + voting_duration, every proposal ending there becomes passed or rejected. A
 * passed PARAM_CHANGE goes to the kernel as a parameter update or a plugin schedule change, each
 * checked here with the kernel's own rule (the parameter's range, `changeSchedule`) so that the
 * proposal records what happened: `applied: true`, or `applied: false` with `apply_error` and
 * nothing changed. The kernel checks the updates again when it applies them.
 */
export async function tallyEnding(ctx: WriteContext, result: EndBlockResult): Promise<EndBlockResult> {
  const ids = await endingAt(ctx.store, ctx.block.height);
  if (ids.length === 0) return result;
  // Read once, and only for proposals created before the base was recorded on each.
  let current: bigint | undefined;
  const paramUpdates = [...result.paramUpdates];
  const pluginUpdates = [...(result.pluginUpdates ?? [])];
  let schedule: PluginScheduleEntry[] | undefined;
  for (const id of ids) {
    const p = await proposals.get(ctx.store, id);
    if (!p || p.status !== 'active') continue;
    const total = p.total_stake ?? (current ??= await ctx.methods.of(stakingMethods).totalSelfStake());
    const status = outcome(p, total);
    let applied: boolean | null = null;
    let applyError: string | null = null;
    if (status === 'passed' && p.kind === 'PARAM_CHANGE') {
      const change = parseParamChange(p.payload);
      if (isChainError(change)) {
        applyError = change.message;
      } else if (change.kind === 'param') {
        applyError = ctx.params.problem(change.key, change.value);
        if (applyError === null) paramUpdates.push([change.key, change.value]);
      } else {
        schedule ??= await readPluginSchedule(ctx);
        const next = changeSchedule(schedule, change.change, ctx.block.height);
        if (typeof next === 'string') applyError = next;
        else {
          schedule = next;
          pluginUpdates.push(change.change);
        }
      }
      applied = applyError === null;
    }
    writeClosedProposal(ctx.store, p, { ...p, status, total_stake: total, applied, apply_error: applyError });
    proposalClosed.emit(ctx, { id, status, yes_weight: p.yes_weight, no_weight: p.no_weight, total_stake: total, ...(applied === null ? {} : { applied, apply_error: applyError }) });
  }
  return { ...result, paramUpdates, pluginUpdates };
}
