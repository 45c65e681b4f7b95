import { type ReadContext, type Signer, type Tx } from '../../kernel/sdk.js';
import { paidBy, poolAddress, type Sponsorship } from './store.js';

const NOBODY: Promise<undefined> = Promise.resolve(undefined);

/**
 * Who pays a transaction's fee (the kernel's `feePayer` hook, asked at admission and again in the
 * block): the pool of the sponsor that allowed the signing account (or exactly this session key
 * of it), when the transaction's gas limit is at most `sponsor_max_gas` and the pool holds the
 * largest fee it can be charged (`maxFee`, its gas limit × its price: decisions.md §95);
 * otherwise nobody here, and the account pays as usual. An empty or short pool therefore falls
 * back to the sender's balance rather than refusing: the beneficiary's transactions keep working,
 * and the kernel never meets a pool that cannot pay what it was asked to.
 *
 * The hot path of every signed transaction on a network with sponsors enabled, twice (admission
 * and block): the common case, an account nobody sponsors, costs one read of `paidby/<account>`
 * (the committed state cache remembers absent keys) and nothing else.
 */
export function sponsorOf(ctx: ReadContext, tx: Tx, signer: Signer, maxFee: bigint): Promise<string | undefined> {
  if (tx.origin !== 'signed') return NOBODY;
  return paidBy.get(ctx.store, signer.account).then((s) => (s === undefined ? undefined : sponsoringPool(ctx, tx, signer, maxFee, s)));
}

async function sponsoringPool(ctx: ReadContext, tx: Tx, signer: Signer, maxFee: bigint, s: Sponsorship): Promise<string | undefined> {
  if (s.session_pk !== null && (signer.kind !== 'session' || signer.publicKey !== s.session_pk)) return undefined;
  // A limit above what the sponsor agreed to pay for is the beneficiary's own to pay.
  if (maxFee > tx.gasPrice * (await ctx.params.get('sponsor_max_gas'))) return undefined;
  const pool = poolAddress(s.sponsor);
  return (await ctx.accounts.getCore(pool)).balance >= maxFee ? pool : undefined;
}
