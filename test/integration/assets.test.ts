import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { labelledWallet, type Wallet } from '../helpers/chain-fixture.js';
import { signAssetOp } from '../helpers/asset-ops.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { assetId, orderedPair, poolId, quoteAlone, swapFees, isqrt } from '../../plugins/assets/public.js';
import { trustFromGenesis, verifyCommit, verifyStateProof, ONE_THIRD, type TrustedValidators } from '../../kernel/light-client/index.js';
import { canonicalJson } from '../../kernel/codec/json.js';
import { sha3Hex0x } from '../../kernel/crypto/hash.js';
import { parseHex } from '../../kernel/codec/hex.js';
import { utf8Bytes } from '../../kernel/codec/utf8.js';

/**
 * Native assets and the batch-cleared exchange on a real 4-validator devnet (the test build, for
 * `POST /test/inject`: a proposer that skips checkTx), as a client would: through the gateway,
 * reads checked on every validator. One devnet serves every scenario; after each, supply is
 * conserved per asset and every validator holds the same records and state root. At the end,
 * conservation is checked again at every height from the first issue to the last block, each
 * holding read at that height through `GET /api/v1/state/proof?height=` (decisions.md §66) and
 * verified against the state root of a header the genesis validators certified.
 */
let clock = Date.now();
const nonce = (): number => ++clock;

describe('assets and exchange on a real devnet', () => {
  let net: TestDevnet;
  const alice = labelledWallet('assets-it-alice');
  const bob = labelledWallet('assets-it-bob');
  const carol = labelledWallet('assets-it-carol');
  let gold = '';
  let pool = '';
  let minted = 0n;
  /** The heights the scenarios' confirmed writes landed in: the supply walk must cover each. */
  const writeHeights = new Set<number>();
  /** What was minted of GOLD from each height on (the issue, then the reissue). */
  const mintedFrom: Array<{ height: number; minted: bigint }> = [];
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  // Writes go through the gateway; reads that check a write's effect ask a validator, since the
  // gateway may answer from its cache for one poll interval (plugins/gateway/README.md).
  const gw = (path: string) => getJson(`${rpc()}${path}`);
  const viaGateway = (path: string) => getJson(`${net.gatewayUrl}${path}`);
  const body = (w: Wallet, op: string, fields: Record<string, unknown>, o: Partial<Parameters<typeof signAssetOp>[3]> = {}) => signAssetOp(w, op, { from: w.address, ...fields }, { nonce: nonce(), ...o });
  const submit = (path: string, b: Record<string, unknown>) => postJson(`${net.gatewayUrl}${path}`, b);
  const confirmed = async (path: string, b: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = await submit(path, b);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    const tx = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', `${path}: ${JSON.stringify(tx)}`);
    writeHeights.add(tx.block as number);
    return tx;
  };
  const refusedWith = async (path: string, b: Record<string, unknown>, status: number, re: RegExp): Promise<void> => {
    const r = await submit(path, b);
    assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(JSON.stringify(r.body), re);
  };
  /** Balance rows by asset, from validator 0 or from the node at `base`. */
  const rows = async (path: string, base?: string): Promise<Map<string, number>> => new Map(((await (base === undefined ? gw(path) : getJson(`${base}${path}`))).body.balances as Array<{ asset_id: string; amount: number }>).map((r) => [r.asset_id, r.amount]));
  const coin = async (addr: string): Promise<bigint> => BigInt((await gw(`/api/v1/accounts/${addr}`)).body.balance as number);
  const param = async (key: string): Promise<bigint> => BigInt(((await gw('/api/v1/governance/params')).body.params as Record<string, { value: number | string }>)[key]!.value);

  /** §62 at the committed height, on every validator: supply = main + exchange + reserves, supply + burned = minted; the same pool record everywhere. */
  const conserved = async (): Promise<void> => {
    // Each validator read at one state: every one at least at validator 0's height (a scenario waits
    // for its transactions on validator 0 only), and nothing is pending when this runs, so later
    // blocks are empty. Read from a validator that had not yet applied the last block, the supply
    // and the pool came from two heights (once in CI: 500 GOLD of protocol fee between them).
    const h = (await getJson(`${rpc(0)}/health`)).body.height as number;
    for (const u of net.rpcUrls) await until(`${u} at height ${h}`, async () => (((await getJson(`${u}/health`)).body.height as number) >= h ? true : undefined));
    for (let i = 0; i < net.rpcUrls.length; i++) {
      const a = (await getJson(`${rpc(i)}/api/v1/assets/${gold}`)).body;
      let held = 0n;
      for (const w of [alice, bob, carol]) {
        held += BigInt((await rows(`/api/v1/assets/balances/${w.address}`, rpc(i))).get(gold) ?? 0);
        held += BigInt((await rows(`/api/v1/dex/balances/${w.address}`, rpc(i))).get(gold) ?? 0);
      }
      if (pool !== '') held += BigInt((await getJson(`${rpc(i)}/api/v1/dex/pools/${pool}`)).body.reserve_x as number);
      assert.equal(BigInt(a.supply as number) + BigInt(a.burned as number), minted, `validator ${i}: supply + burned = minted`);
      assert.equal(held, BigInt(a.supply as number), `validator ${i}: main + exchange + reserves = supply`);
    }
    if (pool !== '') {
      const records = await Promise.all(net.rpcUrls.map(async (u) => until(`pool on ${u}`, async () => (await getJson(`${u}/api/v1/dex/pools/${pool}`)).body)));
      assert.equal(new Set(records.map((r) => JSON.stringify(r))).size, 1, 'the same pool record on every validator');
      const expected = JSON.stringify(records[0]);
      await until('the gateway serves the validators\' pool record', async () => (JSON.stringify((await viaGateway(`/api/v1/dex/pools/${pool}`)).body) === expected ? true : undefined));
    }
    await sameRootEverywhere(net);
  };

  before(async () => {
    // Blocks at most every 400 ms while transactions wait, so swaps sent together share a block.
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'], env: { CHAIN_BLOCK_MS: '400' } });
    for (const w of [alice, bob, carol]) {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await waitConfirmed(rpc(), f.body.tx_hash as string);
    }
  });
  after(async () => net?.stop());

  test('check-symbol, issue with the fee read from the parameters, reissue, transfers and balances', async () => {
    assert.deepEqual((await gw('/api/v1/assets/check-symbol?symbol=GOLD')).body, { symbol: 'GOLD', valid: true, available: true, reason: null });
    assert.equal((await gw('/api/v1/assets/check-symbol?symbol=gold')).body.valid, false);
    assert.equal((await gw('/api/v1/assets/check-symbol')).status, 400);
    const estimate = (await gw('/api/v1/gas/estimate')).body.operations as Record<string, number>;
    for (const name of ['issue_asset', 'transfer_asset', 'dex_deposit', 'dex_withdraw', 'create_pool', 'add_liquidity', 'remove_liquidity', 'swap']) assert.ok(estimate[name]! > 0, `${name} in the estimate's operations`);
    const fee = await param('asset_issue_fee');
    assert.equal(fee, 10_000_000n, 'devnet lowers asset_issue_fee to 10 COIN');
    const before = await coin(alice.address);
    const tx = await confirmed('/api/v1/assets/issue', body(alice, 'issue_asset', { name: 'Gold', symbol: 'GOLD', decimals: 6, initial: 1_000_000_000, max_supply: 5_000_000_000, reissuable: true, reissue_unlock_height: 0, issue_nonce: 1 }));
    assert.equal(tx.type, 'issue_asset');
    assert.equal(await coin(alice.address), before - fee - BigInt(tx.fee as number), 'the issue fee and the operation fee, nothing else');
    gold = assetId(alice.address, 'GOLD', 1);
    minted = 1_000_000_000n;
    mintedFrom.push({ height: tx.block as number, minted });
    const a = (await gw(`/api/v1/assets/${gold}`)).body;
    assert.equal(a.supply_human, '1000 GOLD');
    assert.equal((await gw('/api/v1/assets/check-symbol?symbol=GOLD')).body.reason, `taken by ${gold}`);
    await refusedWith('/api/v1/assets/issue', body(bob, 'issue_asset', { name: 'Gold', symbol: 'GOLD', decimals: 6, initial: 1, max_supply: 5, reissuable: true, reissue_unlock_height: 0, issue_nonce: 1 }), 409, /taken/);
    const reissue = await confirmed('/api/v1/assets/issue', body(alice, 'issue_asset', { name: 'Gold', symbol: 'GOLD', decimals: 6, initial: 250_000_000, max_supply: 5_000_000_000, reissuable: true, reissue_unlock_height: 0, issue_nonce: 2 }));
    minted += 250_000_000n;
    mintedFrom.push({ height: reissue.block as number, minted });
    await confirmed('/api/v1/assets/transfer', body(alice, 'transfer_asset', { to: bob.address, asset_id: gold, amount: 300_000_000 }));
    assert.equal((await rows(`/api/v1/assets/balances/${bob.address}`)).get(gold), 300_000_000);
    const list = (await gw(`/api/v1/assets?issuer=${alice.address}`)).body;
    assert.deepEqual([list.total, (list.assets as unknown[]).length, list.has_more], [1, 1, false]);
    await conserved();
  });

  test('deposits and withdrawals of an asset and of ucoin; a pool with exact shares; liquidity added and removed', async () => {
    for (const w of [alice, bob, carol]) await confirmed('/api/v1/dex/deposit', body(w, 'dex_deposit', { asset_id: 'ucoin', amount: 20_000_000 }));
    for (const w of [alice, bob]) await confirmed('/api/v1/dex/deposit', body(w, 'dex_deposit', { asset_id: gold, amount: 200_000_000 }));
    await confirmed('/api/v1/dex/withdraw', body(bob, 'dex_withdraw', { asset_id: 'ucoin', amount: 1_000_000 }));
    await confirmed('/api/v1/dex/withdraw', body(bob, 'dex_withdraw', { asset_id: gold, amount: 1_000_000 }));
    const bx = await rows(`/api/v1/dex/balances/${bob.address}`);
    assert.deepEqual([bx.get(gold), bx.get('ucoin')], [199_000_000, 19_000_000]);
    const [x, y] = orderedPair(gold, 'ucoin');
    pool = poolId(x, y);
    await confirmed('/api/v1/dex/pools', body(alice, 'create_pool', { asset_x: 'ucoin', asset_y: gold, amount_x: 10_000_000, amount_y: 100_000_000 }));
    let p = (await gw(`/api/v1/dex/pools/${pool}`)).body;
    const t0 = isqrt(100_000_000n * 10_000_000n);
    assert.deepEqual([p.asset_x, p.reserve_x, p.reserve_y, p.total_shares, p.locked_shares, p.last_batch], [gold, 100_000_000, 10_000_000, Number(t0), 1000, null]);
    await refusedWith('/api/v1/dex/pools', body(bob, 'create_pool', { asset_x: gold, asset_y: 'ucoin', amount_x: 5, amount_y: 5 }), 409, /pooled/);
    await confirmed('/api/v1/dex/liquidity/add', body(bob, 'add_liquidity', { pool_id: pool, max_a: 1_000_000, max_b: 1_000_000 }));
    const s = [(1_000_000n * t0) / 100_000_000n, (1_000_000n * t0) / 10_000_000n].reduce((a, b) => (a < b ? a : b));
    p = (await gw(`/api/v1/dex/pools/${pool}`)).body;
    assert.deepEqual([p.total_shares, p.reserve_x, p.reserve_y], [Number(t0 + s), Number(100_000_000n + (s * 100_000_000n + t0 - 1n) / t0), Number(10_000_000n + (s * 10_000_000n + t0 - 1n) / t0)]);
    const pos = (await gw(`/api/v1/dex/positions/${bob.address}`)).body;
    assert.equal((pos.positions as Array<{ shares: number }>)[0]!.shares, Number(s));
    await confirmed('/api/v1/dex/liquidity/remove', body(bob, 'remove_liquidity', { pool_id: pool, shares: Number(s) }));
    assert.equal((await gw(`/api/v1/dex/positions/${bob.address}`)).body.total, 0);
    await conserved();
  });

  test('a quote matched by the swap it prices; opposite swaps sent together clear in one block at the price computed from §59, an unmet min_out dropped', async () => {
    let p = (await gw(`/api/v1/dex/pools/${pool}`)).body;
    const q = (await gw(`/api/v1/dex/quote?pool_id=${pool}&asset_in=ucoin&amount_in=100000`)).body;
    const f0 = swapFees(100_000n, 30n, 5n);
    assert.equal(q.amount_out, Number(quoteAlone(f0.net, BigInt(p.reserve_y as number), BigInt(p.reserve_x as number)).amountOut));
    const before = (await rows(`/api/v1/dex/balances/${carol.address}`)).get(gold) ?? 0;
    await confirmed('/api/v1/dex/swap', body(carol, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 100_000, min_out: q.amount_out, deadline_height: 1_000_000 }));
    await until('carol\'s swap cleared', async () => ((await rows(`/api/v1/dex/balances/${carol.address}`)).get(gold) !== before ? true : undefined));
    assert.equal((await rows(`/api/v1/dex/balances/${carol.address}`)).get(gold), before + (q.amount_out as number), 'the quote is what a swap alone gets');

    p = (await gw(`/api/v1/dex/pools/${pool}`)).body;
    const [X, Y] = [BigInt(p.reserve_x as number), BigInt(p.reserve_y as number)];
    const fa = swapFees(1_000_000n, 30n, 5n); // alice pays GOLD (x)
    const fb = swapFees(200_000n, 30n, 5n); // bob pays ucoin (y)
    const fc = swapFees(50_000n, 30n, 5n); // carol pays ucoin, asking more than she can get
    const greedy = (fc.net * (X + fa.net)) / (Y + fb.net + fc.net) + 1n;
    const sent = await Promise.all([
      submit('/api/v1/dex/swap', body(alice, 'swap', { pool_id: pool, asset_in: gold, amount_in: 1_000_000, min_out: 0, deadline_height: 1_000_000 })),
      submit('/api/v1/dex/swap', body(bob, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 200_000, min_out: 0, deadline_height: 1_000_000 })),
      submit('/api/v1/dex/swap', body(carol, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 50_000, min_out: Number(greedy), deadline_height: 1_000_000 })),
    ]);
    const txs = await Promise.all(sent.map((r) => waitConfirmed(rpc(), r.body.tx_hash as string)));
    assert.deepEqual(txs.map((t) => t.status), ['confirmed', 'confirmed', 'confirmed']);
    assert.equal(new Set(txs.map((t) => t.block)).size, 1, `the three swaps share a block: ${txs.map((t) => t.block).join(', ')}`);
    const [A, B] = [fa.net, fb.net];
    p = (await gw(`/api/v1/dex/pools/${pool}`)).body;
    assert.deepEqual(p.last_batch, { height: txs[0]!.block, swaps: 3, filled: 2, refunded: 1, price_num: Number(Y + B), price_den: Number(X + A) });
    const act = (await gw(`/api/v1/dex/activity/${carol.address}`)).body;
    const last = (act.activity as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual([last.kind, last.status, last.reason, last.amount_out], ['swap', 'refunded', 'min_out', 0]);
    const all = (await gw(`/api/v1/dex/transactions?pool_id=${pool}&kind=swap`)).body;
    assert.equal(all.total, 4);
    const events = (await gw(`/api/v1/blocks/${txs[0]!.block}/events`)).body.events as Array<{ type: string; data: Record<string, unknown> }>;
    assert.ok(events.some((e) => e.type === 'batch_cleared' && e.data.pool_id === pool));
    await conserved();
  });

  test('_psig: valid accepted, every kind of bad one refused 401; a proposer that skips checkTx: a late swap refunded, one above the balance fails, the same root everywhere', async () => {
    await confirmed('/api/v1/dex/deposit', body(alice, 'dex_deposit', { asset_id: 'ucoin', amount: 5 }, { psig: 'none' }));
    const fields = { asset_id: 'ucoin', amount: 5 };
    for (const o of [{ psig: { hex: 'zz' } }, { psigBy: bob }, { psigText: 'ch-asset-op-v1|dex_withdraw|x|{}|1' }] as const) {
      await refusedWith('/api/v1/dex/deposit', body(alice, 'dex_deposit', fields, o), 401, /_psig/);
    }
    const height = (await getJson(`${rpc()}/health`)).body.height as number;
    const late = body(bob, 'swap', { pool_id: pool, asset_in: gold, amount_in: 1_000, min_out: 0, deadline_height: height });
    await refusedWith('/api/v1/dex/swap', late, 400, /has passed/);
    const gb = (await rows(`/api/v1/dex/balances/${bob.address}`)).get(gold);
    let hash = '';
    for (const url of net.rpcUrls) hash = (await postJson(`${url}/test/inject`, { ...late, _op: 'swap' })).body.injected as string;
    for (const url of net.rpcUrls) assert.equal((await waitConfirmed(url, hash)).status, 'confirmed');
    await until('the late swap refunded', async () => ((await rows(`/api/v1/dex/balances/${bob.address}`)).get(gold) === gb ? true : undefined));
    const over = body(carol, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 900_000_000, min_out: 0, deadline_height: height + 1_000 });
    for (const url of net.rpcUrls) hash = (await postJson(`${url}/test/inject`, { ...over, _op: 'swap' })).body.injected as string;
    for (const url of net.rpcUrls) {
      const tx = await waitConfirmed(url, hash);
      assert.equal(tx.status, 'failed');
      assert.match(tx.error as string, /above the exchange balance/);
    }
    await conserved();
  });

  test('supply conserved per asset at every height of the run, each read proven at its height (§66) against a certified header; a changed value proves old at the old height, new at the new', async (t) => {
    const genesis = JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')) as unknown;
    const trusted: TrustedValidators = trustFromGenesis(genesis, sha3Hex0x(canonicalJson(genesis)));
    const first = mintedFrom[0]!.height;
    const last = (await getJson(`${rpc()}/health`)).body.height as number;
    // Block h's state root is certified by block h + 1's header (its prev_state_root).
    await until(`block ${last + 1} committed`, async () => (((await getJson(`${rpc()}/health`)).body.height as number) > last ? true : undefined));
    const holders = [alice, bob, carol].flatMap((w) => [`assets/balance/${w.address}/${gold}`, `assets/xbalance/${w.address}/${gold}`]);
    const keys = [`assets/asset/${gold}`, `assets/pool/${pool}`, ...holders];
    const decoder = new TextDecoder();
    /** Each key's bytes at `h`, every proof checked against the certified root of `h`. */
    const provenAt = async (h: number): Promise<Map<string, string | null>> => {
      const commit = await getJson(`${rpc(h % net.rpcUrls.length)}/api/v1/blocks/${h + 1}/commit`);
      assert.equal(commit.status, 200, JSON.stringify(commit.body));
      const root = verifyCommit(commit.body as never, trusted, { trustLevel: ONE_THIRD }).header.prevStateRoot;
      const out = new Map<string, string | null>();
      await Promise.all(
        keys.map(async (key) => {
          const r = await getJson(`${rpc(h % net.rpcUrls.length)}/api/v1/state/proof?key=${encodeURIComponent(key)}&height=${h}`);
          assert.equal(r.status, 200, `${key} at ${h}: ${JSON.stringify(r.body)}`);
          assert.deepEqual([r.body.height, r.body.state_root], [h, root], `${key} at ${h}: the certified root of block ${h}`);
          const value = r.body.value_hex === null ? null : Buffer.from(r.body.value_hex as string, 'hex');
          assert.ok(verifyStateProof(parseHex(root)!, utf8Bytes(key), value, r.body.proof), `${key} at ${h}: the proof verifies`);
          out.set(key, value === null ? null : decoder.decode(value));
        }),
      );
      return out;
    };
    const big = (v: unknown): bigint => (typeof v === 'object' && v !== null && '$big' in v ? BigInt((v as { $big: string }).$big) : BigInt(v as number));
    const aliceMain = new Map<number, string | null>();
    const heights = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    // A few heights at a time, spread over the validators: each height is a commit and eight proofs.
    for (let i = 0; i < heights.length; i += 4) {
      await Promise.all(
        heights.slice(i, i + 4).map(async (h) => {
          const at = await provenAt(h);
          const asset = JSON.parse(at.get(`assets/asset/${gold}`)!) as Record<string, unknown>;
          const pooled = at.get(`assets/pool/${pool}`);
          const reserve = pooled === null || pooled === undefined ? 0n : big((JSON.parse(pooled) as Record<string, unknown>).reserve_x);
          const held = holders.reduce((sum, key) => sum + BigInt(at.get(key) ?? '0'), reserve);
          const mintedAt = mintedFrom.filter((m) => m.height <= h).at(-1)!.minted;
          assert.equal(big(asset.supply) + big(asset.burned), mintedAt, `height ${h}: supply + burned = minted`);
          assert.equal(held, big(asset.supply), `height ${h}: main + exchange + reserves = supply`);
          aliceMain.set(h, at.get(`assets/balance/${alice.address}/${gold}`) ?? null);
        }),
      );
    }
    // The reissue changed alice's balance: the height before proves the old value, its own height the new.
    const reissued = mintedFrom[1]!.height;
    assert.deepEqual([aliceMain.get(reissued - 1), aliceMain.get(reissued)], ['1000000000', '1250000000']);
    // How many blocks the run takes depends on the machine's speed; what must hold is that the walk
    // covers every block a confirmed write of the scenarios landed in.
    const missed = [...writeHeights].filter((h) => !heights.includes(h));
    assert.deepEqual(missed, [], `every write's height is checked (${writeHeights.size} write heights, ${heights.length} heights checked, ${first} to ${last})`);
    assert.ok(writeHeights.size >= 15, `${writeHeights.size} distinct write heights`);
    t.diagnostic(`${heights.length} heights checked, ${first} to ${last}`);
  });
});
