import type { ReadContext, Signer, Tx } from '../../kernel/sdk.js';
import { paidByPath, poolAddress, type Sponsorship } from './store.js';

/**
 * Who pays a transaction's fee (the kernel's `feePayer` hook, asked at admission and again in the
 * block): the pool of the sponsor that allowed the signing account (or exactly this session key
 * of it), when the pool holds at least `gas_price × sponsor_max_gas`; otherwise nobody here, and
 * the account pays as usual. An empty or short pool therefore falls back to the sender's balance
 * rather than refusing: the beneficiary's transactions keep working, and the kernel, which knows
 * the exact fee, never meets a pool that cannot pay what it was asked to.
 */
export async function sponsorOf(ctx: ReadContext, tx: Tx, signer: Signer): Promise<string | undefined> {
  if (tx.origin !== 'signed') return undefined;
  const s = await ctx.store.getRecord<Sponsorship>(paidByPath(signer.account));
  if (!s) return undefined;
  if (s.session_pk !== null && (signer.kind !== 'session' || signer.publicKey !== s.session_pk)) return undefined;
  const pool = poolAddress(s.sponsor);
  const bound = tx.gasPrice * (await ctx.params.get('sponsor_max_gas'));
  return (await ctx.accounts.get(pool)).balance >= bound ? pool : undefined;
}
