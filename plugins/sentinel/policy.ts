import { badRequest, formatCoin, fractionText, unauthorized, type ChainError, type ParamSpec, type ReadContext, type ReadonlyStore, type SignerKind } from '../../kernel/sdk.js';
import { SCALE, fraction, score, type Model, type Verdict } from './model.js';
import { isTrusted, recentHeights, type HeldTransfer } from './store.js';

/** Part 2's AI-security and transaction-policy parameters (the sentinel's share). */
export const SENTINEL_PARAMS: readonly ParamSpec[] = [
  { key: 'sentinel_enabled', default: 1n, min: 0n, max: 1n, description: 'transaction scoring on or off' },
  { key: 'sentinel_reject_threshold', default: 85n, description: 'refuse at score at or above (0-100 scale, 85 = 0.85)' },
  { key: 'sentinel_policy_enabled', default: 0n, description: 'hold/confirm policy layer (1 = on)' },
  { key: 'sentinel_hold_threshold', default: 60n, description: 'score from which a transfer is held' },
  { key: 'sentinel_stepup_threshold', default: 70n, description: 'score from which the owner must confirm' },
  { key: 'sentinel_hold_blocks', default: 50n, description: 'delay before release, in blocks' },
  { key: 'sentinel_confirm_expiry_blocks', default: 1_000n, description: 'wait for confirmation before refund, in blocks' },
  { key: 'sentinel_agent_confirm_threshold', default: 60n, description: 'session-key transfers at or above need the owner' },
  { key: 'trust_activation_blocks', default: 300n, description: 'delay before a new trusted recipient counts, in blocks' },
];

/** A threshold parameter (0–100) on the score's scale. */
const onScale = (threshold: bigint): bigint => threshold * (SCALE / 100n);

/** What the scorer is asked about a plain transfer, read from the state `ctx` sees. */
export interface TransferShape {
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly gasPrice: bigint;
  readonly nonce: bigint;
}

/**
 * The verdict on a transfer from state: the sender's balance, the recipient's transfer count and
 * the sender's transfers in the last 10 blocks (this plugin's `recent` records). `last_nonce` is
 * `nonce - 1`: the kernel admits and applies only the next nonce, so a gap never reaches here
 * (the unsigned score route still scores one).
 */
export async function verdictOf(ctx: Pick<ReadContext, 'accounts'>, store: ReadonlyStore, height: number, model: Model, t: TransferShape): Promise<{ verdict: Verdict; recent: number[] }> {
  const [sender, recipient, recent] = await Promise.all([ctx.accounts.getCore(t.from), ctx.accounts.getCore(t.to), recentHeights(store, t.from, height)]);
  const verdict = score(model, {
    value: t.value,
    gas_price: t.gasPrice,
    nonce: t.nonce,
    last_nonce: t.nonce - 1n,
    balance: sender.balance,
    tx_count_last_10: BigInt(recent.length),
    recipient_tx_count: BigInt(recipient.tx_count),
    is_self_transfer: t.from === t.to,
  });
  // The window's heights go back to the block path, which appends this transfer without reading the record again.
  return { verdict, recent };
}

/** The parameters a scored transfer is judged by. */
export interface ScoringParams {
  readonly enabled: boolean;
  readonly reject: bigint;
  readonly policy: boolean;
}

/** The parameters a scored transfer is judged by, read in one go (every transfer of value pays for them twice, at admission and in its block). */
export async function scoringParams(ctx: Pick<ReadContext, 'params'>): Promise<ScoringParams> {
  const [enabled, reject, policy] = await Promise.all([ctx.params.get('sentinel_enabled'), ctx.params.get('sentinel_reject_threshold'), ctx.params.get('sentinel_policy_enabled')]);
  return { enabled: enabled === 1n, reject, policy: policy === 1n };
}

/**
 * `scoringParams` once per block: parameters change only in endBlock and apply from the next
 * block (the kernel's executor reads its storage price once per block on the same rule), and each
 * block's execution has a `BlockInfo` object of its own, so every transfer of a block reads the
 * values its first one read.
 */
export class BlockScoringParams {
  private readonly byBlock = new WeakMap<object, Promise<ScoringParams>>();

  of(ctx: Pick<ReadContext, 'params'> & { readonly block: object }): Promise<ScoringParams> {
    let p = this.byBlock.get(ctx.block);
    if (p === undefined) {
      const block = ctx.block;
      p = scoringParams(ctx);
      this.byBlock.set(block, p);
      // A failed read is not kept for the block: the next transfer reads again, as it would without the cache.
      p.catch(() => this.byBlock.delete(block));
    }
    return p;
  }
}

/** 400 at or above `reject` (`sentinel_reject_threshold`), else undefined. */
export function rejection(reject: bigint, v: Verdict): ChainError | undefined {
  if (v.scoreBp < onScale(reject)) return undefined;
  return badRequest(`sentinel: transaction scored ${fractionText(v.scoreBp)} (${v.category}), at or above sentinel_reject_threshold ${reject} (${fractionText(onScale(reject))})`, 'a smaller share of the balance, or a known recipient, scores lower');
}

/** The submission response's fields for a flagged transaction (decisions.md §37: all three together). */
export function warningFields(v: Verdict): Record<string, unknown> {
  return { sentinel_score: fraction(v.scoreBp), sentinel_category: v.category, sentinel_warning: `transaction scored ${fractionText(v.scoreBp)} and looks anomalous (${v.category})` };
}

export interface HoldDecision {
  readonly needsOwner: boolean;
  readonly reason: HeldTransfer['reason'];
}

/**
 * Whether the policy layer holds a transfer, from committed state (asked only with
 * `sentinel_policy_enabled` 1: `scoringParams`): never for a recipient the sender trusts (active at `height`);
 * from `sentinel_hold_threshold` held, from `sentinel_stepup_threshold` (or a session key from
 * `sentinel_agent_confirm_threshold`) held until the owner confirms.
 */
export async function holdDecision(ctx: Pick<ReadContext, 'params'>, store: ReadonlyStore, height: number, t: TransferShape, v: Verdict, signer: () => SignerKind | Promise<SignerKind>): Promise<HoldDecision | undefined> {
  const [hold, stepup, agent] = await Promise.all([ctx.params.get('sentinel_hold_threshold'), ctx.params.get('sentinel_stepup_threshold'), ctx.params.get('sentinel_agent_confirm_threshold')]);
  const s = v.scoreBp;
  // The signer's kind is asked only when it matters (at admission it costs a key hash).
  const decision: HoldDecision | undefined =
    s >= onScale(stepup) ? { needsOwner: true, reason: 'stepup' } : s >= onScale(agent) && (await signer()) !== 'main' ? { needsOwner: true, reason: 'agent' } : s >= onScale(hold) ? { needsOwner: false, reason: 'score' } : undefined;
  if (decision === undefined) return undefined;
  return (await isTrusted(store, t.from, t.to, height)) ? undefined : decision;
}

/**
 * A transfer the policy layer would hold that cannot wait (the value a call attaches, an
 * operation's deposit or escrow: its recipient acts on the coins at once): refused instead, so
 * the hold, step-up and session-key rules hold for every destination (decisions.md §99). 401 for
 * the session-key rule (§31), 400 otherwise.
 */
export function notHoldable(d: HoldDecision, v: Verdict, to: string): ChainError {
  const why = `sentinel: a transfer of value to ${to} scored ${fractionText(v.scoreBp)} (${v.category})`;
  const hint = 'send the value as a plain transfer, which can be held and confirmed, or add the recipient to the trust list';
  if (d.reason === 'agent') return unauthorized(`${why}, at or above sentinel_agent_confirm_threshold for a session key: it needs the owner, and value attached to a call or an operation cannot wait for confirmation`, hint);
  return badRequest(`${why}, which the policy layer holds (${d.needsOwner ? 'until the owner confirms' : 'for sentinel_hold_blocks'}); value attached to a call or an operation cannot be held`, hint);
}

/** `held` in the submission response and on routes: when it releases and whether the owner must act. */
export function heldView(h: HeldTransfer): Record<string, unknown> {
  return {
    tx_hash: h.tx_hash,
    from: h.from,
    to: h.to,
    value: h.value,
    value_human: formatCoin(h.value),
    score: fraction(h.score_bp),
    category: h.category,
    reason: h.reason,
    needs_owner: h.needs_owner,
    releases: h.needs_owner ? 'owner_confirmation' : 'automatic',
    held_height: h.held_height,
    release_height: h.release_height,
    expiry_height: h.expiry_height,
    status: h.status,
    resolved_height: h.resolved_height,
  };
}
