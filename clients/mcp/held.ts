import { isRecord, ToolFailure } from './gateway-client.js';

/** `held` of `ch_transfer`'s result when the policy layer holds the transfer (decisions.md §81). */
export interface HeldReport {
  readonly releases: 'automatic' | 'owner_confirmation';
  readonly needs_owner: boolean;
  readonly score: number;
  readonly category: unknown;
  readonly release_after_blocks?: number;
  readonly refund_after_blocks?: number;
  readonly message: string;
}

/** The sentinel parameters §81's rule needs when the node's `held` does not say (GET /api/v1/governance/params). */
export interface HoldParams {
  readonly stepup: number;
  readonly agent: number;
  readonly holdBlocks: number;
  readonly expiryBlocks: number;
}

/** What the node's `held` details already say, or that the parameters are needed to say it. */
export function heldNeedsParams(held: Record<string, unknown>): boolean {
  const releases = held.releases;
  const known = releases === 'automatic' || releases === 'owner_confirmation' || typeof held.needs_owner === 'boolean';
  if (!known) return true;
  const owner = releases === 'owner_confirmation' || held.needs_owner === true;
  return typeof (owner ? held.refund_after_blocks : held.release_after_blocks) !== 'number';
}

/** The score as a JSON number: the node writes a fraction, as a number or as text (`"0.6312"`). */
function scoreOf(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) return Number(v);
  return Number.NaN;
}

/**
 * §81: whether the hold releases by itself or needs the owner, from the node's `held` details
 * where they say it, else by part 1's rule for a session-key transfer (every tool transfer is one):
 * the owner must confirm when score × 100 is at least `sentinel_stepup_threshold` or
 * `sentinel_agent_confirm_threshold`.
 */
export function heldReport(txHash: string, to: string, held: Record<string, unknown>, params: HoldParams | undefined): HeldReport {
  const score = scoreOf(held.score);
  let owner: boolean;
  if (held.releases === 'automatic' || held.releases === 'owner_confirmation') owner = held.releases === 'owner_confirmation';
  else if (typeof held.needs_owner === 'boolean') owner = held.needs_owner;
  else {
    if (!params) throw new Error('heldReport: the node did not say how the hold ends, and no parameters were read');
    owner = score * 100 >= params.stepup || score * 100 >= params.agent;
  }
  const key = owner ? 'refund_after_blocks' : 'release_after_blocks';
  const given = held[key];
  const n = typeof given === 'number' ? given : owner ? params?.expiryBlocks : params?.holdBlocks;
  if (n === undefined) throw new Error(`heldReport: the node did not say ${key}, and no parameters were read`);
  return {
    releases: owner ? 'owner_confirmation' : 'automatic',
    needs_owner: owner,
    score,
    category: held.category,
    [key]: n,
    message: owner
      ? `held by the policy layer: the owner must confirm it with the account's main key (POST /api/v1/transactions/${txHash}/confirm) within ${n} blocks, or it is refunded; a session key cannot confirm`
      : `held by the policy layer: released to ${to} automatically after ${n} blocks unless the owner cancels it`,
  };
}

/** The four parameters from GET /api/v1/governance/params (`{params: {<key>: {value, …}}, height}`). */
export function holdParamsOf(answer: unknown): HoldParams {
  const params = isRecord(answer) ? answer.params : undefined;
  const value = (key: string): number => {
    const entry = isRecord(params) ? params[key] : undefined;
    const v = isRecord(entry) ? entry.value : undefined;
    const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n)) throw new ToolFailure(`GET /api/v1/governance/params → 200 the answer has no ${key}: the network runs no sentinel policy parameters`);
    return n;
  };
  return { stepup: value('sentinel_stepup_threshold'), agent: value('sentinel_agent_confirm_threshold'), holdBlocks: value('sentinel_hold_blocks'), expiryBlocks: value('sentinel_confirm_expiry_blocks') };
}
