import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, refused, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { signAssetOp } from '../../test/helpers/asset-ops.js';
import { assetHoldings } from '../../test/helpers/supply-model.js';
import { assetsPlugin } from './index.js';
import { assetId, EXCHANGE_ESCROW, orderedPair, poolId } from './public.js';
import { clearBatch } from './clearing.js';
import { isqrt, swapFees } from './math.js';

const COIN = 1_000_000n;
const alice = labelledWallet('assets-alice');
const bob = labelledWallet('assets-bob');
const carol = labelledWallet('assets-carol');
let nonce = 1_960_000_000_000;

async function chain(opts: { env?: 'mainnet' | 'testnet'; params?: Record<string, string>; requireTxV3?: boolean } = {}): Promise<Fixture> {
  return makeChain({
    plugins: [assetsPlugin],
    env: opts.env ?? 'testnet',
    requireTxV3: opts.requireTxV3 ?? false,
    accounts: [alice, bob, carol].map((w) => ({ address: w.address, balance: 100_000n * COIN })),
    genesisParams: { asset_issue_fee: String(10n * COIN), ...opts.params },
  });
}

const op = (w: Wallet, name: string, body: Record<string, unknown>, o: Partial<Parameters<typeof signAssetOp>[3]> = {}) => signAssetOp(w, name, { from: w.address, ...body }, { nonce: ++nonce, ...o });

/** Admits an operation and commits the block that carries it: its receipt. */
async function applied(f: Fixture, name: string, body: Record<string, unknown>): Promise<{ status: string; error: string | null }> {
  const r = await f.chain.admitOperation(name, body, {}, 0);
  const b = await f.block();
  assert.ok(b.tx_hashes.includes(r.tx_hash));
  const rec = (await f.chain.store.getTx(r.tx_hash))!;
  return { status: rec.receipt.status, error: rec.receipt.error };
}

async function confirmed(f: Fixture, name: string, body: Record<string, unknown>): Promise<void> {
  const r = await applied(f, name, body);
  assert.equal(r.status, 'confirmed', r.error ?? '');
}

/** Supply per asset and the exchange's ucoin, as decisions.md §62 states them, at the committed height. */
async function conserved(f: Fixture, minted: ReadonlyMap<string, bigint>): Promise<void> {
  const h = await assetHoldings(f.chain.store.state, EXCHANGE_ESCROW);
  assert.equal(h.openBatches, 0, 'no batch is open at a committed height');
  for (const [id, a] of h.assets) {
    assert.equal(a.held, a.supply, `asset ${id}: main + exchange balances + reserves = supply`);
    assert.equal(a.supply + a.burned, minted.get(id), `asset ${id}: supply + burned = minted`);
  }
  assert.equal(h.escrowBalance, h.exchangeUcoin, 'the escrow holds exactly the exchange\'s ucoin');
}

const issueBody = (symbol: string, over: Record<string, unknown> = {}) => ({ name: `${symbol} token`, symbol, decimals: 6, initial: 1_000_000_000, max_supply: 2_000_000_000, reissuable: true, reissue_unlock_height: 0, issue_nonce: 7, ...over });

test('issue burns asset_issue_fee beside the operation fee; reissue mints within max_supply; transfer and exchange moves keep supply conserved', async () => {
  const f = await chain();
  const minted = new Map<string, bigint>();
  const before = (await f.account(alice.address)).balance;
  const r = await f.chain.admitOperation('issue_asset', op(alice, 'issue_asset', issueBody('GOLD')), {}, 0);
  const b = await f.block();
  const rec = (await f.chain.store.getTx(r.tx_hash))!;
  assert.equal(rec.receipt.status, 'confirmed', rec.receipt.error ?? '');
  assert.equal((await f.account(alice.address)).balance, before - 10n * COIN - rec.receipt.fee, 'the issue fee and the operation fee, nothing else');
  assert.equal(b.fees_burned, 10n * COIN + rec.receipt.fee_burned, 'the issue fee is in the block\'s fees_burned');
  const gold = assetId(alice.address, 'GOLD', 7);
  minted.set(gold, 1_000_000_000n);
  await conserved(f, minted);

  // Reissue: the same fields, no issue fee.
  const mid = (await f.account(alice.address)).balance;
  const r2 = await f.chain.admitOperation('issue_asset', op(alice, 'issue_asset', issueBody('GOLD', { initial: 500_000_000, issue_nonce: 99 })), {}, 0);
  await f.block();
  const rec2 = (await f.chain.store.getTx(r2.tx_hash))!;
  assert.equal(rec2.receipt.status, 'confirmed', rec2.receipt.error ?? '');
  assert.equal((await f.account(alice.address)).balance, mid - rec2.receipt.fee);
  minted.set(gold, 1_500_000_000n);
  await refused(f.chain.admitOperation('issue_asset', op(alice, 'issue_asset', issueBody('GOLD', { initial: 600_000_000 })), {}, 0), 400, /exceed max_supply/);
  await refused(f.chain.admitOperation('issue_asset', op(alice, 'issue_asset', issueBody('GOLD', { decimals: 2 })), {}, 0), 400, /decimals/);
  await refused(f.chain.admitOperation('issue_asset', op(bob, 'issue_asset', issueBody('GOLD')), {}, 0), 409, new RegExp(`taken by ${gold}`));

  await confirmed(f, 'transfer_asset', op(alice, 'transfer_asset', { to: bob.address, asset_id: gold, amount: 250_000_000 }));
  await confirmed(f, 'dex_deposit', op(bob, 'dex_deposit', { asset_id: gold, amount: 100_000_000 }));
  await confirmed(f, 'dex_deposit', op(bob, 'dex_deposit', { asset_id: 'ucoin', amount: 5_000_000 }));
  assert.equal((await f.account(EXCHANGE_ESCROW)).balance, 5_000_000n);
  await confirmed(f, 'dex_withdraw', op(bob, 'dex_withdraw', { asset_id: 'ucoin', amount: 2_000_000 }));
  await confirmed(f, 'dex_withdraw', op(bob, 'dex_withdraw', { asset_id: gold, amount: 40_000_000 }));
  assert.equal((await f.account(EXCHANGE_ESCROW)).balance, 3_000_000n);
  await conserved(f, minted);
});
