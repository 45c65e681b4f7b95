import { unauthorized, type ChainError, type ReadContext, type Tx } from '../../kernel/sdk.js';
import { identityMethods } from '../identity/public.js';
import type { SessionGrant } from './store.js';

/** Where a grant stands for a block at `height`: what the list view shows and what signing needs. */
export type GrantStatus = 'active' | 'revoked' | 'expired' | 'ended';

/**
 * Whether the key that granted the session is still a main key of the account and was not
 * removed since the grant (rotation or recovery ends the sessions it granted, decisions in the
 * session README): identity says so (its `removedSince`) where the network runs it; the key set
 * says the rest. Read from state, so every validator judges it alike.
 */
async function granterRemoved(ctx: Pick<ReadContext, 'accounts' | 'methods'>, g: SessionGrant): Promise<boolean> {
  if ((await ctx.methods.active(identityMethods)) && (await ctx.methods.of(identityMethods).removedSince(g.account, g.granted_by, g.granted_height))) return true;
  const keys = await ctx.accounts.mainKeys(g.account, g.granted_by_derived ? g.granted_by : undefined);
  return !keys.keys.includes(g.granted_by);
}

export async function grantStatus(ctx: Pick<ReadContext, 'accounts' | 'methods'>, g: SessionGrant, height: number): Promise<GrantStatus> {
  if (g.revoked_height !== null && height > g.revoked_height) return 'revoked';
  if (height >= g.expiry_block) return 'expired';
  return (await granterRemoved(ctx, g)) ? 'ended' : 'active';
}

/**
 * Why a session key may not sign a transaction for `to` that takes `debit` from the account, in
 * the block at `ctx.height`, as the 401 every client sees (part 2 Session keys 2–3,
 * decisions.md §31): revoked, expired, ended, out of scope, or beyond the cap. The cap counts
 * what the transaction takes from the account besides its fee (decisions.md §95).
 */
export async function sessionProblem(ctx: ReadContext, g: SessionGrant, to: string, debit: bigint, pending = 0n): Promise<ChainError | undefined> {
  const status = await grantStatus(ctx, g, ctx.height);
  if (status === 'revoked') return unauthorized(`session key revoked: revoked in block ${g.revoked_height}, refused from block ${g.revoked_height! + 1}`);
  if (status === 'expired') return unauthorized(`session key expired: valid in blocks below expiry_block ${g.expiry_block}, this is block ${ctx.height}`);
  if (status === 'ended') return unauthorized('session key ended: the main key that granted it was removed from the account (rotation or recovery)');
  if (g.scope !== '*' && !g.scope.includes(to)) return unauthorized(`session key scope does not include ${to}`, 'the account\'s main key may widen the scope with a new grant');
  return capProblem(g, debit, pending);
}

/**
 * The cap: what the key spent so far, what its pending transactions take (admission only) and what
 * this transaction takes from the account.
 */
export function capProblem(g: SessionGrant, debit: bigint, pending = 0n): ChainError | undefined {
  if (g.spent + pending + debit <= g.cap) return undefined;
  return unauthorized(`session spend cap exceeded: ${g.spent} of ${g.cap} ucoin spent${pending > 0n ? ` and ${pending} held by pending transactions` : ''}, ${debit} more asked`, 'the cap counts every ucoin a transaction takes from the account (value, stake, deposit, price), fees aside');
}

/**
 * decisions.md §95: a session key's transaction may not set `gas_price` above `base_fee`, or it
 * could hand the account's balance to a colluding proposer as fees, which the cap does not count.
 */
export async function priceProblem(ctx: ReadContext, tx: Pick<Tx, 'body'>): Promise<ChainError | undefined> {
  const declared = tx.body.gas_price;
  if (typeof declared !== 'number') return undefined;
  const baseFee = await ctx.params.get('base_fee');
  return BigInt(declared) > baseFee ? unauthorized(`session key may not set gas_price above base_fee: ${declared} > ${baseFee}`, 'omit gas_price, or sign with the account\'s main key') : undefined;
}
