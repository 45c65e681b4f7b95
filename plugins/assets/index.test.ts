import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, refused, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { signAssetOp } from '../../test/helpers/asset-ops.js';
import { assetHoldings, heldSupply } from '../../test/helpers/supply-model.js';
import { assetsPlugin } from './index.js';
import { definePlugin, type Tx } from '../../kernel/sdk.js';
import { assetId, EXCHANGE_ESCROW, orderedPair, poolId } from './public.js';
import { clearBatch } from './clearing.js';
import { isqrt, swapFees } from './math.js';

const COIN = 1_000_000n;
const alice = labelledWallet('assets-alice');
const bob = labelledWallet('assets-bob');
const carol = labelledWallet('assets-carol');
/** Holds 50 COIN only: moves of far more asset units than that must not be held against it. */
const dave = labelledWallet('assets-dave');
let nonce = 1_960_000_000_000;

/** A byzantine proposer's list, put in place of the honest one after every plugin's prepareProposal (listed last). */
let proposalOverride: Tx[] | undefined;
/** A parameter the next block's endBlock sets, as a passed governance proposal would. */
let paramChange: readonly [string, bigint] | undefined;
const byzantineProposer = definePlugin<Record<string, unknown>, unknown>({
  name: 'byzantine',
  kind: 'state',
  description: 'test only: replaces the proposal a proposer built; sets a parameter as governance would',
  stores: [],
  register(api) {
    api.hooks.prepareProposal.tapPromise(api.name, async (txs) => proposalOverride ?? txs);
    api.hooks.endBlock.tapPromise(api.name, async (result) => {
      const change = paramChange;
      paramChange = undefined;
      return change === undefined ? result : { ...result, paramUpdates: [...result.paramUpdates, change] };
    });
  },
});

/** What the genesis of `chain` credits: three accounts of 100 000 COIN and dave's 50. */
const GENESIS_COINS = 3n * 100_000n * COIN + 50n * COIN;

async function chain(opts: { env?: 'mainnet' | 'testnet'; params?: Record<string, string>; requireTxV3?: boolean; peer?: boolean } = {}): Promise<Fixture> {
  const make = () =>
    makeChain({
      plugins: [assetsPlugin, byzantineProposer],
      env: opts.env ?? 'testnet',
      requireTxV3: opts.requireTxV3 ?? false,
      accounts: [...[alice, bob, carol].map((w) => ({ address: w.address, balance: 100_000n * COIN })), { address: dave.address, balance: 50n * COIN }],
      genesisParams: { asset_issue_fee: String(10n * COIN), ...opts.params },
    });
  const f = await make();
  if (opts.peer === true) withPeer(f, await make());
  return f;
}

/** The second validator of a fixture made with `peer` (withPeer). */
const peers = new WeakMap<Fixture, Fixture>();
let peerClock = 1_800_000_000_000;

/**
 * Makes `f` the proposer of a two-validator chain: each block it proposes is validated by `peer`
 * too, which never admitted its transactions (it sees only the proposal, as a validator of a
 * byzantine proposer does), and committed on both; the two must end every block with the same
 * state root.
 */
function withPeer(f: Fixture, peer: Fixture): void {
  peers.set(f, peer);
  f.block = async () => {
    const p = await f.chain.propose(0, 'chain:v0.node', (peerClock += 1000));
    assert.equal(await f.chain.validate(p), null, 'the proposer accepts its own block');
    assert.equal(await peer.chain.validate(p), null, 'the other validator accepts the block');
    const [b] = await Promise.all([f.chain.finalize(p), peer.chain.finalize(p)]);
    assert.equal(peer.chain.head.state_root, f.chain.head.state_root, `the same state root on both validators at height ${b.header.height}`);
    return b;
  };
}

const op = (w: Wallet, name: string, body: Record<string, unknown>, o: Partial<Parameters<typeof signAssetOp>[3]> = {}) => signAssetOp(w, name, { from: w.address, ...body }, { nonce: ++nonce, ...o });

/** Admits an operation and commits the block that carries it: its receipt. */
async function applied(f: Fixture, name: string, body: Record<string, unknown>): Promise<{ status: string; error: string | null }> {
  const r = await f.chain.admitOperation(name, body, {}, 0);
  const b = await f.block();
  assert.ok(b.tx_hashes.includes(r.tx_hash));
  const rec = (await f.chain.queries.getTx(r.tx_hash))!;
  return { status: rec.receipt.status, error: rec.receipt.error };
}

async function confirmed(f: Fixture, name: string, body: Record<string, unknown>): Promise<void> {
  const r = await applied(f, name, body);
  assert.equal(r.status, 'confirmed', r.error ?? '');
}

/** Supply per asset and the exchange's ucoin, as decisions.md §62 states them, at the committed height. */
async function conserved(f: Fixture, minted: ReadonlyMap<string, bigint>): Promise<void> {
  const h = await assetHoldings(f.chain.queries.state, EXCHANGE_ESCROW);
  assert.equal(h.openBatches, 0, 'no batch is open at a committed height');
  for (const [id, a] of h.assets) {
    assert.equal(a.held, a.supply, `asset ${id}: main + exchange balances + reserves = supply`);
    assert.equal(a.supply + a.burned, minted.get(id), `asset ${id}: supply + burned = minted`);
  }
  assert.equal(h.escrowBalance, h.exchangeUcoin, 'the escrow holds exactly the exchange\'s ucoin');
  // The coin: the escrow is an account, so balances (with it) and everything burned (issue fees,
  // ucoin protocol fees, operation fees) are the genesis supply to the ucoin.
  const coins = await heldSupply(f.chain.queries.state);
  assert.equal(coins.total + f.chain.head.total_burned, GENESIS_COINS, 'coin supply conserved: balances + burned = genesis');
}

const issueBody = (symbol: string, over: Record<string, unknown> = {}) => ({ name: `${symbol} token`, symbol, decimals: 6, initial: 1_000_000_000, max_supply: 2_000_000_000, reissuable: true, reissue_unlock_height: 0, issue_nonce: 7, ...over });

test('issue burns asset_issue_fee beside the operation fee; reissue mints within max_supply; transfer and exchange moves keep supply conserved', async () => {
  const f = await chain();
  const minted = new Map<string, bigint>();
  const before = (await f.account(alice.address)).balance;
  const r = await f.chain.admitOperation('issue_asset', op(alice, 'issue_asset', issueBody('GOLD')), {}, 0);
  const b = await f.block();
  const rec = (await f.chain.queries.getTx(r.tx_hash))!;
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
  const rec2 = (await f.chain.queries.getTx(r2.tx_hash))!;
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

test('an operation\'s value counts asset units (§54): 10^12 units issued, moved, deposited and swapped by an account holding 50 COIN; only a ucoin deposit is held against its coins', async () => {
  const f = await chain();
  const big = 1_000_000_000_000;
  await confirmed(f, 'issue_asset', op(dave, 'issue_asset', issueBody('DAVE', { initial: big, max_supply: 2 * big })));
  const id = assetId(dave.address, 'DAVE', 7);
  await confirmed(f, 'transfer_asset', op(dave, 'transfer_asset', { to: alice.address, asset_id: id, amount: big / 2 }));
  await confirmed(f, 'dex_deposit', op(dave, 'dex_deposit', { asset_id: id, amount: big / 2 }));
  await confirmed(f, 'dex_withdraw', op(dave, 'dex_withdraw', { asset_id: id, amount: big / 4 }));
  const coins = (await f.account(dave.address)).balance;
  assert.ok(coins < 40n * COIN, `dave holds ${coins} ucoin after the 10 COIN issue fee and the operation fees`);
  await refused(f.chain.admitOperation('dex_deposit', op(dave, 'dex_deposit', { asset_id: 'ucoin', amount: Number(coins) }), {}, 0), 400, /./);
  await confirmed(f, 'dex_deposit', op(dave, 'dex_deposit', { asset_id: 'ucoin', amount: 20_000_000 }));
  await confirmed(f, 'create_pool', op(dave, 'create_pool', { asset_x: id, asset_y: 'ucoin', amount_x: big / 8, amount_y: 10_000_000 }));
  const pool = poolId(...orderedPair(id, 'ucoin'));
  await confirmed(f, 'swap', op(dave, 'swap', { pool_id: pool, asset_in: id, amount_in: big / 8, min_out: 0, deadline_height: 1_000 }));
  assert.ok((await xbal(f, dave.address, 'ucoin')) > 10_000_000n, 'the swap paid ucoin out');
  await conserved(f, new Map([[id, BigInt(big)]]));
});

const text = (raw: Uint8Array | undefined): string | undefined => (raw === undefined ? undefined : new TextDecoder().decode(raw));

/** An exchange balance as committed state has it. */
async function xbal(f: Fixture, address: string, asset: string): Promise<bigint> {
  return BigInt(text(await f.chain.queries.state.get(`assets/xbalance/${address}/${asset}`)) ?? '0');
}

/** A pool record as committed state has it, amounts as bigints. */
async function poolAt(f: Fixture, id: string): Promise<{ reserve_x: bigint; reserve_y: bigint; total_shares: bigint; last_batch: Record<string, unknown> | null }> {
  const raw = text(await f.chain.queries.state.get(`assets/pool/${id}`));
  assert.ok(raw !== undefined, `pool ${id} exists`);
  return JSON.parse(raw, (_k, v: unknown) => (v !== null && typeof v === 'object' && '$big' in v ? BigInt((v as { $big: string }).$big) : v)) as never;
}

/** Alice's GOLD, deposited with ucoin by alice and bob, and a GOLD/ucoin pool of 1 000 000 / 2 000 000 created by alice. */
async function exchange(params: Record<string, string> = {}, peer = false): Promise<{ f: Fixture; gold: string; pool: string; minted: Map<string, bigint> }> {
  const f = await chain({ params, peer });
  const gold = assetId(alice.address, 'GOLD', 7);
  await confirmed(f, 'issue_asset', op(alice, 'issue_asset', issueBody('GOLD')));
  await confirmed(f, 'transfer_asset', op(alice, 'transfer_asset', { to: bob.address, asset_id: gold, amount: 100_000_000 }));
  for (const w of [alice, bob, carol]) await f.chain.admitOperation('dex_deposit', op(w, 'dex_deposit', { asset_id: 'ucoin', amount: 50_000_000 }), {}, 0);
  for (const w of [alice, bob]) await f.chain.admitOperation('dex_deposit', op(w, 'dex_deposit', { asset_id: gold, amount: 50_000_000 }), {}, 0);
  await f.block();
  const [x, y] = orderedPair(gold, 'ucoin');
  assert.equal(x, gold, 'an issued 0x… id is below ucoin');
  await confirmed(f, 'create_pool', op(alice, 'create_pool', { asset_x: 'ucoin', asset_y: gold, amount_x: 2_000_000, amount_y: 1_000_000 }));
  const pool = poolId(x, y);
  return { f, gold, pool, minted: new Map([[gold, 1_000_000_000n]]) };
}

test('pools and liquidity: exact initial shares with the minimum locked, additions and removals rounded in the pool\'s favour', async () => {
  const { f, gold, pool, minted } = await exchange();
  let p = await poolAt(f, pool);
  assert.deepEqual([p.reserve_x, p.reserve_y, p.total_shares], [1_000_000n, 2_000_000n, isqrt(2_000_000_000_000n)]);
  const t0 = p.total_shares; // 1 414 213
  await refused(f.chain.admitOperation('create_pool', op(bob, 'create_pool', { asset_x: gold, asset_y: 'ucoin', amount_x: 5, amount_y: 5 }), {}, 0), 409, /pooled already/);
  // bob adds: s = min(⌊333·T/X⌋, ⌊1000·T/Y⌋), takes ⌈s·X/T⌉ and ⌈s·Y/T⌉.
  await confirmed(f, 'add_liquidity', op(bob, 'add_liquidity', { pool_id: pool, max_a: 333, max_b: 1000 }));
  const s = [(333n * t0) / 1_000_000n, (1000n * t0) / 2_000_000n].reduce((a, b) => (a < b ? a : b));
  const ceil = (a: bigint, b: bigint) => (a + b - 1n) / b;
  p = await poolAt(f, pool);
  assert.deepEqual([p.reserve_x, p.reserve_y, p.total_shares], [1_000_000n + ceil(s * 1_000_000n, t0), 2_000_000n + ceil(s * 2_000_000n, t0), t0 + s]);
  await refused(f.chain.admitOperation('add_liquidity', op(bob, 'add_liquidity', { pool_id: pool, max_a: 1, max_b: 1 }), {}, 0), 400, /worth no share/);
  const before = [await xbal(f, bob.address, gold), await xbal(f, bob.address, 'ucoin')];
  const q = await poolAt(f, pool);
  await confirmed(f, 'remove_liquidity', op(bob, 'remove_liquidity', { pool_id: pool, shares: Number(s) }));
  assert.deepEqual([await xbal(f, bob.address, gold), await xbal(f, bob.address, 'ucoin')], [before[0]! + (s * q.reserve_x) / q.total_shares, before[1]! + (s * q.reserve_y) / q.total_shares]);
  await refused(f.chain.admitOperation('remove_liquidity', op(bob, 'remove_liquidity', { pool_id: pool, shares: 1 }), {}, 0), 400, /above the position/);
  await conserved(f, minted);
});

test('swaps of one block clear at one price: opposite swaps, an unmet min_out dropped and the price recomputed, the quote matching a swap alone', async () => {
  const { f, gold, pool, minted } = await exchange();
  // A swap alone is priced by the quote: check it against the clearing of a batch of one.
  const alone = clearBatch(99, 1_000_000n, 2_000_000n, [{ side: 'y', amountIn: 10_000n, minOut: 0n, deadlineHeight: 1_000, ...swapFees(10_000n, 30n, 5n) }]);
  const r0 = await f.chain.admitOperation('swap', op(carol, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 10_000, min_out: 0, deadline_height: 1_000 }), {}, 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(r0.tx_hash))!.receipt.status, 'confirmed');
  assert.equal(await xbal(f, carol.address, gold), (alone.outcomes[0] as { amountOut: bigint }).amountOut);
  let p = await poolAt(f, pool);
  assert.deepEqual([p.reserve_x, p.reserve_y], [alone.reserveX, alone.reserveY]);
  // Then three swaps in one block, as the README's example: alice pays GOLD, bob pays ucoin, carol asks too much.
  const [X, Y] = [p.reserve_x, p.reserve_y];
  const f1 = swapFees(10_000n, 30n, 5n);
  const f2 = swapFees(30_000n, 30n, 5n);
  const f3 = swapFees(2_000n, 30n, 5n);
  // carol's min_out: more than she gets with alice's GOLD in the batch, so she drops, and the price moves.
  const n1 = Y + f2.net;
  const withCarol = (f3.net * (X + f1.net)) / n1;
  await f.chain.admitOperation('swap', op(alice, 'swap', { pool_id: pool, asset_in: gold, amount_in: 10_000, min_out: 0, deadline_height: 1_000 }), {}, 0);
  await f.chain.admitOperation('swap', op(bob, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 30_000, min_out: 0, deadline_height: 1_000 }), {}, 0);
  const before = [await xbal(f, alice.address, 'ucoin'), await xbal(f, bob.address, gold), await xbal(f, carol.address, 'ucoin')];
  await f.chain.admitOperation('swap', op(carol, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 2_000, min_out: Number(withCarol + 1n), deadline_height: 1_000 }), {}, 0);
  const b = await f.block();
  // The price the test computes from §59 alone: round 2 without carol.
  const [A, B] = [f1.net, f2.net];
  const [num, den] = [Y + B, X + A];
  p = await poolAt(f, pool);
  assert.deepEqual(p.last_batch, { height: b.header.height, swaps: 3, filled: 2, refunded: 1, price_num: num, price_den: den });
  assert.equal(await xbal(f, alice.address, 'ucoin'), before[0]! + (f1.net * num) / den);
  assert.equal(await xbal(f, bob.address, gold), before[1]! + (f2.net * den) / num);
  assert.equal(await xbal(f, carol.address, 'ucoin'), before[2]!, 'carol\'s 2 000 came back whole (escrowed in the block, refunded at its end)');
  assert.deepEqual([p.reserve_x, p.reserve_y], [X + f1.net + f1.lpFee - (f2.net * den) / num, Y + f2.net + f2.lpFee - (f1.net * num) / den]);
  const a = (await assetHoldings(f.chain.queries.state, EXCHANGE_ESCROW)).assets.get(gold)!;
  assert.equal(a.burned, f1.protocolFee, 'the GOLD protocol fee is burned');
  // The block burns its operation fees and the ucoin protocol fee of bob's swap, nothing else.
  let opFeesBurned = 0n;
  for (const h of b.tx_hashes) opFeesBurned += (await f.chain.queries.getTx(h))!.receipt.fee_burned;
  assert.equal(b.tx_hashes.length, 3);
  assert.equal(b.fees_burned, opFeesBurned + f2.protocolFee, 'the ucoin protocol fee is in the block\'s fees_burned');
  await conserved(f, minted);
});

test('_psig: valid ones apply, every kind of bad one is 401 with nothing moved; mainnet requires it', async () => {
  const f = await chain();
  await confirmed(f, 'dex_deposit', op(alice, 'dex_deposit', { asset_id: 'ucoin', amount: 5 }));
  await confirmed(f, 'dex_deposit', op(alice, 'dex_deposit', { asset_id: 'ucoin', amount: 5 }, { psig: 'none' }));
  const body = { asset_id: 'ucoin', amount: 7 };
  const cases: Array<[string, Partial<Parameters<typeof signAssetOp>[3]>]> = [
    ['malformed', { psig: { hex: 'zz' } }],
    ['truncated', { psig: { hex: 'ab'.repeat(100) } }],
    ['another key', { psigBy: bob }],
    ['another tag', { psigText: `ch-asset-op-v2|dex_deposit|${alice.address}|{}|1` }],
    ['another operation', { psigText: 'other' }],
  ];
  for (const [what, o] of cases) await refused(f.chain.admitOperation('dex_deposit', op(alice, 'dex_deposit', body, o), {}, 0), 401, /_psig/).catch((e: unknown) => assert.fail(`${what}: ${String(e)}`));
  // Another operation, field or nonce in the layout: sign one body's _psig, send it on another.
  const signed = op(alice, 'dex_deposit', body);
  const wrongOp = op(alice, 'dex_withdraw', body);
  await refused(f.chain.admitOperation('dex_withdraw', { ...wrongOp, _psig: signed._psig }, {}, 0), 401, /_psig/);
  const moreAmount = op(alice, 'dex_deposit', { asset_id: 'ucoin', amount: 8 });
  await refused(f.chain.admitOperation('dex_deposit', { ...moreAmount, _psig: signed._psig }, {}, 0), 401, /_psig/);
  assert.equal(await xbal(f, alice.address, 'ucoin'), 10n, 'nothing moved');

  const m = await chain({ env: 'mainnet', requireTxV3: true });
  await refused(m.chain.admitOperation('dex_deposit', op(alice, 'dex_deposit', body, { psig: 'none' }), {}, 0), 401, /_psig is required/);
  await confirmed(m, 'dex_deposit', op(alice, 'dex_deposit', body));
  await confirmed(m, 'issue_asset', op(alice, 'issue_asset', issueBody('SILVER')));
  assert.equal(await xbal(m, alice.address, 'ucoin'), 7n);
});

test('refusals at admission with the statuses of §62 and a message naming the rule, nothing moved', async () => {
  const { f, gold, pool } = await exchange();
  // A second asset, not reissuable, in carol's exchange balance; a third that unlocks its reissue late.
  await confirmed(f, 'issue_asset', op(carol, 'issue_asset', issueBody('SILV', { reissuable: false })));
  const silv = assetId(carol.address, 'SILV', 7);
  await confirmed(f, 'dex_deposit', op(carol, 'dex_deposit', { asset_id: silv, amount: 1_000 }));
  await confirmed(f, 'issue_asset', op(carol, 'issue_asset', issueBody('LATE', { reissue_unlock_height: 1_000 })));
  const addresses = [alice, bob, carol].map((w) => w.address);
  /** Every balance, position, pool and asset record and account the refusals could touch. */
  const snapshot = async () => ({
    accounts: await Promise.all(addresses.map(async (a) => (await f.account(a)).balance)),
    holdings: await assetHoldings(f.chain.queries.state, EXCHANGE_ESCROW),
    exchange: await Promise.all(addresses.flatMap((a) => [gold, silv, 'ucoin'].map((id) => xbal(f, a, id)))),
    pool: await poolAt(f, pool),
  });
  const before = await snapshot();
  const unknown = `0x${'ab'.repeat(32)}`;
  const refusedOp = (w: Wallet, name: string, body: Record<string, unknown>, status: number, re: RegExp) => refused(f.chain.admitOperation(name, op(w, name, body), {}, 0), status, re);
  // 409: a taken symbol, a pooled pair.
  await refusedOp(bob, 'issue_asset', issueBody('GOLD'), 409, new RegExp(`symbol GOLD is taken by ${gold}`));
  await refusedOp(bob, 'create_pool', { asset_x: gold, asset_y: 'ucoin', amount_x: 5_000, amount_y: 5_000 }, 409, /pooled already/);
  // 404: an unknown asset or pool in the body.
  await refusedOp(alice, 'transfer_asset', { to: bob.address, asset_id: unknown, amount: 1 }, 404, /no asset/);
  await refusedOp(alice, 'dex_deposit', { asset_id: unknown, amount: 1 }, 404, /no asset/);
  await refusedOp(alice, 'create_pool', { asset_x: unknown, asset_y: 'ucoin', amount_x: 5_000, amount_y: 5_000 }, 404, /no asset/);
  await refusedOp(bob, 'swap', { pool_id: unknown, asset_in: gold, amount_in: 1, min_out: 0, deadline_height: 1_000 }, 404, /no pool/);
  await refusedOp(bob, 'add_liquidity', { pool_id: unknown, max_a: 1, max_b: 1 }, 404, /no pool/);
  await refusedOp(alice, 'remove_liquidity', { pool_id: unknown, shares: 1 }, 404, /no pool/);
  // 400, the message naming the rule.
  await refusedOp(carol, 'issue_asset', issueBody('WIDE', { decimals: 19 }), 400, /decimals 19 is above asset_max_decimals 18/);
  await refusedOp(carol, 'issue_asset', issueBody('BIG', { initial: 3_000_000_000 }), 400, /initial 3000000000 is above max_supply/);
  await refusedOp(carol, 'issue_asset', issueBody('COIN'), 400, /reserved/);
  await refusedOp(carol, 'issue_asset', issueBody('gold'), 400, /A-Z and 0-9/);
  await refusedOp(carol, 'issue_asset', issueBody('HUGE', { initial: 2 ** 53, max_supply: 2 ** 53 }), 400, /initial/);
  await refusedOp(carol, 'issue_asset', issueBody('SILV', { reissuable: false }), 400, /not reissuable/);
  await refusedOp(carol, 'issue_asset', issueBody('LATE', { reissue_unlock_height: 1_000 }), 400, /reissue_unlock_height/);
  await refusedOp(alice, 'issue_asset', issueBody('GOLD', { initial: 0 }), 400, /initial is 0/);
  await refusedOp(alice, 'issue_asset', issueBody('GOLD', { name: 'Other gold' }), 400, /name is "GOLD token"/);
  await refusedOp(alice, 'transfer_asset', { to: bob.address, asset_id: 'ucoin', amount: 1 }, 400, /not an issued asset/);
  await refusedOp(alice, 'transfer_asset', { to: alice.address, asset_id: gold, amount: 1 }, 400, /sender itself/);
  await refusedOp(bob, 'transfer_asset', { to: alice.address, asset_id: gold, amount: 100_000_001 }, 400, /insufficient GOLD/);
  await refusedOp(bob, 'dex_deposit', { asset_id: 'ucoin', amount: 100_000 * Number(COIN) }, 400, /balance|insufficient/);
  await refusedOp(carol, 'dex_withdraw', { asset_id: gold, amount: 1 }, 400, /insufficient/);
  await refusedOp(carol, 'create_pool', { asset_x: 'ucoin', asset_y: 'ucoin', amount_x: 1, amount_y: 1 }, 400, /distinct/);
  await refusedOp(carol, 'create_pool', { asset_x: silv, asset_y: 'ucoin', amount_x: 10_000, amount_y: 10 }, 400, /insufficient exchange balance/);
  await refusedOp(carol, 'create_pool', { asset_x: silv, asset_y: 'ucoin', amount_x: 1_000, amount_y: 1_000 }, 400, /liquidity worth no share: .* = 1000 must be above dex_min_liquidity 1000/);
  await refusedOp(bob, 'swap', { pool_id: pool, asset_in: gold, amount_in: 1, min_out: 0, deadline_height: 1 }, 400, /deadline_height 1 has passed/);
  await refusedOp(bob, 'swap', { pool_id: pool, asset_in: gold, amount_in: 50_000_001, min_out: 0, deadline_height: 1_000 }, 400, /above the exchange balance/);
  await refusedOp(bob, 'swap', { pool_id: pool, asset_in: silv, amount_in: 1, min_out: 0, deadline_height: 1_000 }, 400, /not an asset of pool/);
  await refusedOp(bob, 'add_liquidity', { pool_id: pool, max_a: 1, max_b: 1 }, 400, /worth no share/);
  await refusedOp(bob, 'add_liquidity', { pool_id: pool, max_a: 50_000_001, max_b: 1 }, 400, /above the exchange balance/);
  await refusedOp(bob, 'remove_liquidity', { pool_id: pool, shares: 1 }, 400, /above the position/);
  // Nothing entered the pool: the next block is empty and nothing moved.
  assert.equal((await f.block()).tx_hashes.length, 0, 'no refused operation reached a block');
  assert.deepEqual(await snapshot(), before, 'nothing moved');

  // Paused (a parameter change, as governance makes it): new pools, liquidity and swaps 403 naming
  // dex_paused; deposits, withdrawals, removals and transfers stay open.
  paramChange = ['dex_paused', 1n];
  await f.block();
  await refusedOp(carol, 'create_pool', { asset_x: silv, asset_y: 'ucoin', amount_x: 1_000, amount_y: 5_000_000 }, 403, /dex_paused = 1/);
  await refusedOp(bob, 'swap', { pool_id: pool, asset_in: gold, amount_in: 1_000, min_out: 0, deadline_height: 1_000 }, 403, /dex_paused/);
  await refusedOp(bob, 'add_liquidity', { pool_id: pool, max_a: 10_000, max_b: 20_000 }, 403, /dex_paused/);
  await confirmed(f, 'dex_deposit', op(bob, 'dex_deposit', { asset_id: 'ucoin', amount: 10 }));
  await confirmed(f, 'dex_withdraw', op(bob, 'dex_withdraw', { asset_id: 'ucoin', amount: 10 }));
  await confirmed(f, 'remove_liquidity', op(alice, 'remove_liquidity', { pool_id: pool, shares: 1_000 }));
  await confirmed(f, 'transfer_asset', op(alice, 'transfer_asset', { to: carol.address, asset_id: gold, amount: 1 }));
  // A node whose shard is not dex_shard refuses the operations (403 naming it).
  const elsewhere = await chain({ params: { dex_shard: '1' } });
  await refused(elsewhere.chain.admitOperation('dex_deposit', op(alice, 'dex_deposit', { asset_id: 'ucoin', amount: 1 }), {}, 0), 403, /dex_shard/);
});

test('a proposer that skips checkTx: a swap past its deadline is refunded, one above the balance fails, a proposal with too many swaps of a pool is refused; both validators end every block with the same state root', async () => {
  const { f, gold, pool, minted } = await exchange({ dex_max_swaps_per_pool_block: '2' }, true);
  const peer = peers.get(f)!;
  const height = f.chain.head.height;
  const rebuilt = (body: Record<string, unknown>) => f.chain.rebuildTx('signed', f.operations.envelope('swap', body, {}), 1n, 0);
  const late = rebuilt(op(bob, 'swap', { pool_id: pool, asset_in: gold, amount_in: 1_000, min_out: 0, deadline_height: height }));
  const tooMuch = rebuilt(op(carol, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 60_000_000, min_out: 0, deadline_height: 1_000 }));
  await refused(f.chain.admitOperation('swap', op(bob, 'swap', { pool_id: pool, asset_in: gold, amount_in: 1_000, min_out: 0, deadline_height: height }), {}, 0), 400, /has passed/);
  f.chain.mempool.add(late);
  f.chain.mempool.add(tooMuch);
  const goldBefore = await xbal(f, bob.address, gold);
  const carolBefore = await xbal(f, carol.address, 'ucoin');
  const b = await f.block();
  assert.ok(b.tx_hashes.includes(late.hash) && b.tx_hashes.includes(tooMuch.hash));
  assert.equal((await f.chain.queries.getTx(late.hash))!.receipt.status, 'confirmed');
  assert.equal(await xbal(f, bob.address, gold), goldBefore, 'refunded whole for deadline');
  assert.deepEqual((await poolAt(f, pool)).last_batch, { height: b.header.height, swaps: 1, filled: 0, refunded: 1, price_num: (await poolAt(f, pool)).reserve_y, price_den: (await poolAt(f, pool)).reserve_x });
  const failed = (await f.chain.queries.getTx(tooMuch.hash))!.receipt;
  assert.equal(failed.status, 'failed');
  assert.match(failed.error ?? '', /above the exchange balance/);
  assert.equal(await xbal(f, carol.address, 'ucoin'), carolBefore, 'nothing moved but the fee');

  // A _psig that does not verify, carried past admission: checked again in the block (§54).
  const forged = f.chain.rebuildTx('signed', f.operations.envelope('dex_withdraw', op(bob, 'dex_withdraw', { asset_id: gold, amount: 1 }, { psigBy: carol }), {}), 1n, 0);
  proposalOverride = [forged];
  const withForged = await f.chain.propose(0, 'chain:v0.node', (peerClock += 1000));
  proposalOverride = undefined;
  assert.deepEqual(withForged.txs.map((t) => t.hash), [forged.hash]);
  for (const v of [peer, f]) assert.match((await v.chain.validate(withForged)) ?? '', /invalid _psig: it does not verify over the dex_withdraw payload/, 'every validator refuses a block carrying it');

  // An honest proposer defers the third swap of a pool; a byzantine one that keeps it is refused.
  const three = [alice, bob, carol].map((w) => rebuilt(op(w, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 100, min_out: 0, deadline_height: 1_000 })));
  for (const tx of three) f.chain.mempool.add(tx);
  proposalOverride = three;
  const p = await f.chain.propose(0, 'chain:v0.node', Date.now());
  proposalOverride = undefined;
  assert.equal(p.txs.length, 3);
  assert.match((await f.chain.validate(p)) ?? '', /more than dex_max_swaps_per_pool_block \(2\) swaps of pool/);
  assert.match((await peer.chain.validate(p)) ?? '', /more than dex_max_swaps_per_pool_block \(2\) swaps of pool/, 'the other validator refuses it too');
  const honest = await f.block();
  assert.equal(honest.tx_hashes.length, 2, 'two swaps of the pool, the third deferred');
  const next = await f.block();
  assert.equal(next.tx_hashes.length, 1, 'the deferred one in the next block');
  await conserved(f, minted);
  await conserved(peer, minted);
  assert.deepEqual(await xbal(peer, bob.address, gold), await xbal(f, bob.address, gold), 'the same records on both validators');
});
