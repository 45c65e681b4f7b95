import { formatCoin, type ReadonlyStore, type ReportedEvidence, type Store, type WriteContext } from '../../kernel/sdk.js';
import { payeeOf } from './ledger.js';
import { nodes, offences, putNode, putStake, slashCountStore, slashes, stakes, type SlashRecord } from './store.js';
import { validatorSlashed } from './events.js';


export const slashCount = async (s: ReadonlyStore): Promise<number> => (await slashCountStore.get(s)) ?? 0;

/** Each slash under the next sequence number: two slashes in one block keep both records. */
async function writeSlash(s: Store, r: SlashRecord): Promise<void> {
  const n = await slashCount(s);
  slashes.set(s, n, r);
  slashCountStore.set(s, n + 1);
}

/**
 * Double-sign slashing (part 1, Consensus 10): `slash_fraction_double_sign_bps` of `min_stake`,
 * capped at the validator's self-stake; `slash_reward_fraction_bps` of it to the reporter — the
 * owner of the proposer of the block that includes the evidence (decisions.md §24) — and the rest
 * burned; the node is jailed (voting power 0) for `jail_blocks` and returns by itself after, if its
 * stake is still at least `min_stake` (the active set re-derivation sees to both). Delegations are
 * not slashed. The kernel verifies the evidence, applies each piece once and only within the
 * evidence window before this runs.
 *
 * One offence per validator per height and round, whatever the vote types (§98): the kernel
 * identifies a piece of evidence by its vote type too, so conflicting prevotes and conflicting
 * precommits of one round arrive as two pieces; the second finds the offence recorded and
 * changes nothing.
 */
export async function slashDoubleSign(ctx: WriteContext, ev: ReportedEvidence): Promise<void> {
  if (await offences.has(ctx.store, ev.validator, ev.height, ev.round)) return;
  const node = await nodes.get(ctx.store, ev.validator);
  const stake = await stakes.get(ctx.store, ev.validator);
  if (!node || !stake) return;
  offences.set(ctx.store, ev.validator, ev.height, ev.round, ev.hash);
  const p = ctx.params;
  const fraction = await p.get('slash_fraction_double_sign_bps');
  const wanted = ((await p.get('min_stake')) * fraction) / 10_000n;
  const amount = wanted < stake.amount ? wanted : stake.amount;
  const reward = (amount * (await p.get('slash_reward_fraction_bps'))) / 10_000n;
  // The kernel names the reporter (decisions.md §24: the proposer of the including block); a
  // `.node` is paid through its owner (§30).
  const reporter = await payeeOf(ctx.store, ev.reporter).catch(() => ev.reporter);
  const jailedUntil = ctx.block.height + Number(await p.get('jail_blocks'));
  await putStake(ctx.store, ev.validator, { ...stake, amount: stake.amount - amount }, ctx.block.height);
  await putNode(ctx.store, { ...node, jailed_until: jailedUntil });
  if (reward > 0n) await ctx.accounts.credit(reporter, reward);
  await writeSlash(ctx.store, { height: ctx.block.height, validator: ev.validator, evidence: ev.hash, kind: ev.kind, offence_height: ev.height, offence_round: ev.round, amount, reporter, reporter_reward: reward, burned: amount - reward, jailed_until: jailedUntil });
  validatorSlashed.emit(ctx, { validator: ev.validator, amount, reporter, reporter_reward: reward, burned: amount - reward, jailed_until: jailedUntil, evidence: ev.hash });
}

/** One page of the slashes, newest first: read by sequence number, so a page costs its size. */
export async function slashPage(s: ReadonlyStore, limit: number, offset: number): Promise<{ rows: SlashRecord[]; total: number }> {
  const total = await slashCount(s);
  const rows: SlashRecord[] = [];
  for (let seq = total - 1 - offset; seq >= 0 && rows.length < limit; seq--) {
    const r = await slashes.get(s, seq);
    if (r) rows.push(r);
  }
  return { rows, total };
}

export function slashView(r: SlashRecord): Record<string, unknown> {
  return { ...r, amount_human: formatCoin(r.amount), reporter_reward_human: formatCoin(r.reporter_reward), burned_human: formatCoin(r.burned) };
}
