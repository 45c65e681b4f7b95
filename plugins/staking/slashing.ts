import { formatCoin, jsonRecord, type ReadonlyStore, type ReportedEvidence, type WriteContext } from '../../kernel/sdk.js';
import { payeeOf } from './ledger.js';
import { readNode, readStake, writeNode, writeStake } from './store.js';

/** A slash as recorded and listed by `GET /api/v1/slashing/history`. */
export interface SlashRecord {
  height: number;
  validator: string;
  evidence: string;
  kind: string;
  offence_height: number;
  amount: bigint;
  reporter: string;
  reporter_reward: bigint;
  burned: bigint;
  jailed_until: number;
}

const slashCodec = jsonRecord<SlashRecord>();
const slashKey = (height: number, validator: string): string => `slash/${String(height).padStart(12, '0')}/${validator}`;

/**
 * Double-sign slashing (part 1, Consensus 10): `slash_fraction_double_sign_bps` of `min_stake`,
 * capped at the validator's self-stake; `slash_reward_fraction_bps` of it to the reporter — the
 * owner of the proposer of the block that includes the evidence (decisions.md §24) — and the rest
 * burned; the node is jailed (voting power 0) for `jail_blocks` and returns by itself after, if its
 * stake is still at least `min_stake` (the active set re-derivation sees to both). Delegations are
 * not slashed. The kernel verifies the evidence, applies each piece once and only within the
 * evidence window before this runs.
 */
export async function slashDoubleSign(ctx: WriteContext, ev: ReportedEvidence): Promise<void> {
  const node = await readNode(ctx.store, ev.validator);
  const stake = await readStake(ctx.store, ev.validator);
  if (!node || !stake) return;
  const p = ctx.params;
  const fraction = await p.get('slash_fraction_double_sign_bps');
  const wanted = ((await p.get('min_stake')) * fraction) / 10_000n;
  const amount = wanted < stake.amount ? wanted : stake.amount;
  const reward = (amount * (await p.get('slash_reward_fraction_bps'))) / 10_000n;
  // The kernel names the reporter (decisions.md §24: the proposer of the including block); a
  // `.node` is paid through its owner (§30).
  const reporter = await payeeOf(ctx.store, ev.reporter).catch(() => ev.reporter);
  const jailedUntil = ctx.block.height + Number(await p.get('jail_blocks'));
  writeStake(ctx.store, ev.validator, { ...stake, amount: stake.amount - amount });
  writeNode(ctx.store, { ...node, jailed_until: jailedUntil });
  if (reward > 0n) await ctx.accounts.credit(reporter, reward);
  const record: SlashRecord = { height: ctx.block.height, validator: ev.validator, evidence: ev.hash, kind: ev.kind, offence_height: ev.height, amount, reporter, reporter_reward: reward, burned: amount - reward, jailed_until: jailedUntil };
  ctx.store.setRecord(slashKey(ctx.block.height, ev.validator), record, slashCodec);
  ctx.emit({ type: 'validator_slashed', data: { validator: ev.validator, amount, reporter, reporter_reward: reward, burned: amount - reward, jailed_until: jailedUntil, evidence: ev.hash } });
}

/** Every slash, oldest first. */
export async function slashHistory(store: ReadonlyStore): Promise<SlashRecord[]> {
  return (await store.scan('slash/')).map(([, v]) => slashCodec.decode(v));
}

export function slashView(r: SlashRecord): Record<string, unknown> {
  return { ...r, amount_human: formatCoin(r.amount), reporter_reward_human: formatCoin(r.reporter_reward), burned_human: formatCoin(r.burned) };
}
