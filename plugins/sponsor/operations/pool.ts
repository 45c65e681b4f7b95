import { badRequest, operationFamily } from '../../../kernel/sdk.js';
import { PoolMoveSchema } from '../schemas.js';
import { poolAddress, SPONSOR_TARGET } from '../store.js';
import { sponsorDeposited, sponsorWithdrew } from '../events.js';

/** Coins into and out of the sponsor's pool: one body, Signs-for and value (`amount`), two directions. */
const poolMove = operationFamily({ schema: PoolMoveSchema, signsFor: SPONSOR_TARGET, gas: 30 });

/** `POST /api/v1/sponsor/deposit`: coins from the sponsor's account into its pool. */
export const sponsorDeposit = poolMove({
  name: 'sponsor_deposit',
  description: 'moves coins from the sponsor into its fee pool',
  routes: [{ method: 'POST', path: '/api/v1/sponsor/deposit' }],
  // Into the pool: the sentinel judges the move at admission as in the block (decisions.md §99).
  pays: (_ctx, op) => [{ to: poolAddress(op.actor), value: op.value }],
  async execute(ctx, op) {
    await ctx.accounts.transfer(op.actor, poolAddress(op.actor), op.value);
    sponsorDeposited.emit(ctx, { address: op.actor, amount: op.body.amount });
  },
});

/** `POST /api/v1/sponsor/withdraw`: coins from the pool back to the sponsor; more than the pool holds is 400. */
export const sponsorWithdraw = poolMove({
  name: 'sponsor_withdraw',
  description: 'returns coins from the sponsor\'s fee pool to the sponsor',
  routes: [{ method: 'POST', path: '/api/v1/sponsor/withdraw' }],
  // The signed amount comes into the account from the pool: nothing is taken from it (decisions.md §95).
  debits: () => 0n,
  async check(ctx, op) {
    const pool = (await ctx.accounts.get(poolAddress(op.actor))).balance;
    return op.value > pool ? badRequest(`the sponsor pool of ${op.actor} holds ${pool} ucoin, less than ${op.value}`) : undefined;
  },
  async execute(ctx, op) {
    await ctx.accounts.transfer(poolAddress(op.actor), op.actor, op.value);
    sponsorWithdrew.emit(ctx, { address: op.actor, amount: op.body.amount });
  },
});
