import { unauthorized, type ChainError, type ReadContext, type Tx } from '../../kernel/sdk.js';
import { IDENTITY_NAMESPACE, removedKeyPath, resetPath, type RemovedKey } from '../identity/removed-keys.js';
import type { SessionGrant } from './store.js';

/** Where a grant stands for a block at `height`: what the list view shows and what signing needs. */
export type GrantStatus = 'active' | 'revoked' | 'expired' | 'ended';

/**
 * Whether the key that granted the session is still a main key of the account and was not
 * removed since the grant (rotation or recovery ends the sessions it granted, decisions in the
 * session README). Read from state, so every validator judges it alike.
 */
async function granterRemoved(ctx: Pick<ReadContext, 'accounts' | 'read'>, g: SessionGrant): Promise<boolean> {
  const identity = ctx.read(IDENTITY_NAMESPACE);
  for (const path of [removedKeyPath(g.account, g.granted_by), resetPath(g.account)]) {
    const removed = await identity.getRecord<RemovedKey>(path);
    if (removed !== undefined && removed.height >= g.granted_height) return true;
  }
  const keys = await ctx.accounts.mainKeys(g.account, g.granted_by_derived ? g.granted_by : undefined);
  return !keys.keys.includes(g.granted_by);
}

export async function grantStatus(ctx: Pick<ReadContext, 'accounts' | 'read'>, g: SessionGrant, height: number): Promise<GrantStatus> {
  if (g.revoked_height !== null && height > g.revoked_height) return 'revoked';
  if (height >= g.expiry_block) return 'expired';
  return (await granterRemoved(ctx, g)) ? 'ended' : 'active';
}

/**
 * Why a session key may not sign `tx` in the block at `ctx.height`, as the 401 every client
 * sees (part 2 Session keys 2–3, decisions.md §31): revoked, expired, ended, out of scope, or
 * beyond the cap. The cap counts the value moved (`tx.value`, an operation's signed amount),
 * never the fee.
 */
export async function sessionProblem(ctx: ReadContext, g: SessionGrant, tx: Pick<Tx, 'to' | 'value'>): Promise<ChainError | undefined> {
  const status = await grantStatus(ctx, g, ctx.height);
  if (status === 'revoked') return unauthorized(`session key revoked: revoked in block ${g.revoked_height}, refused from block ${g.revoked_height! + 1}`);
  if (status === 'expired') return unauthorized(`session key expired: valid in blocks below expiry_block ${g.expiry_block}, this is block ${ctx.height}`);
  if (status === 'ended') return unauthorized('session key ended: the main key that granted it was removed from the account (rotation or recovery)');
  if (g.scope !== '*' && !g.scope.includes(tx.to)) return unauthorized(`session key scope does not include ${tx.to}`, 'the account\'s main key may widen the scope with a new grant');
  if (g.spent + tx.value > g.cap) {
    return unauthorized(`session spend cap exceeded: ${g.spent} of ${g.cap} ucoin spent, ${tx.value} more asked`);
  }
  return undefined;
}
