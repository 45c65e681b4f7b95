import { Bench } from 'tinybench';
import { clearBatch, type BatchSwap } from '../plugins/assets/clearing.js';
import { swapFees } from '../plugins/assets/math.js';
import { assetsPlugin } from '../plugins/assets/index.js';
import { assetId, orderedPair, poolId } from '../plugins/assets/public.js';
import { signAssetOp } from '../test/helpers/asset-ops.js';
import { labelledWallet, makeChain } from '../test/helpers/chain-fixture.js';
import { mulberry32 } from '../test/helpers/prng.js';
import { selectProvider, type ProviderChoice } from '../kernel/crypto/select-provider.js';
import { CachingVerifier } from '../kernel/crypto/verifier.js';

/**
 * The exchange's clearing and admission (issue 33): the uniform-price rule of a full batch
 * (`dex_max_swaps_per_pool_block` = 100 swaps, a third with a min_out that drops) in one pool and
 * in 100 pools, pure; a block of 100 swaps of one pool executed and cleared (endBlock) on an
 * in-memory chain; and swaps admitted per second on one node (signature, _psig, checks), verified
 * by the provider a node picks (CHAIN_CRYPTO_PROVIDER, default auto), as a validator would.
 * `npm run build && node dist/bench/assets.bench.js` (one at a time under `flock /tmp/heavy.lock` on a shared machine).
 */
const FULL = 100;
const rand = mulberry32(33);
const batch = (): BatchSwap[] =>
  Array.from({ length: FULL }, (_, i) => {
    const amountIn = BigInt(1_000 + Math.floor(rand() * 1_000_000));
    const f = swapFees(amountIn, 30n, 5n);
    return { side: i % 2 === 0 ? 'x' : 'y', amountIn, minOut: i % 3 === 0 ? (f.net * 99n) / 100n : 0n, deadlineHeight: 1_000, net: f.net, lpFee: f.lpFee, protocolFee: f.protocolFee };
  });
const one = batch();
const hundred = Array.from({ length: 100 }, batch);

const pure = new Bench({ time: 2000 });
pure
  .add(`clearBatch: ${FULL} swaps, one pool`, () => void clearBatch(10, 50_000_000n, 70_000_000n, one))
  .add(`clearBatch: ${FULL} swaps in each of 100 pools`, () => {
    for (const b of hundred) clearBatch(10, 50_000_000n, 70_000_000n, b);
  });
await pure.run();
console.table(pure.table());

// On a chain: 100 traders with exchange balances of GOLD and ucoin in one pool.
const traders = Array.from({ length: FULL }, (_, i) => labelledWallet(`assets-bench-${i}`));
const issuer = traders[0]!;
const { provider } = selectProvider((process.env.CHAIN_CRYPTO_PROVIDER ?? 'auto') as ProviderChoice);
console.log(`signature verification: ${provider.name}`);
const f = await makeChain({ plugins: [assetsPlugin], verifier: new CachingVerifier(provider), accounts: traders.map((w) => ({ address: w.address, balance: 10n ** 12n })), genesisParams: { asset_issue_fee: '0' }, mempool: { maxTxs: 10_000, maxPerSender: 256 } });
let nonce = 1_970_000_000_000;
const op = (w: (typeof traders)[number], name: string, body: Record<string, unknown>) => signAssetOp(w, name, { from: w.address, ...body }, { nonce: ++nonce });
const gold = assetId(issuer.address, 'GOLD', 1);
await f.chain.admitOperation('issue_asset', op(issuer, 'issue_asset', { name: 'Gold', symbol: 'GOLD', decimals: 6, initial: 9_000_000_000_000, max_supply: 9_000_000_000_000, reissuable: false, reissue_unlock_height: 0, issue_nonce: 1 }), {}, 0);
await f.block();
for (const w of traders.slice(1)) await f.chain.admitOperation('transfer_asset', op(issuer, 'transfer_asset', { to: w.address, asset_id: gold, amount: 10_000_000_000 }), {}, 0);
await f.block();
for (const w of traders) {
  await f.chain.admitOperation('dex_deposit', op(w, 'dex_deposit', { asset_id: gold, amount: 5_000_000_000 }), {}, 0);
  await f.chain.admitOperation('dex_deposit', op(w, 'dex_deposit', { asset_id: 'ucoin', amount: 5_000_000_000 }), {}, 0);
}
await f.block();
const [x, y] = orderedPair(gold, 'ucoin');
await f.chain.admitOperation('create_pool', op(issuer, 'create_pool', { asset_x: x, asset_y: y, amount_x: 1_000_000_000, amount_y: 1_000_000_000 }), {}, 0);
await f.block();
const pool = poolId(x, y);
const swapBodies = (): Array<Record<string, unknown>> => traders.map((w, i) => op(w, 'swap', { pool_id: pool, asset_in: i % 2 === 0 ? x : y, amount_in: 1_000 + i, min_out: 0, deadline_height: 1_000_000 }));

const BLOCKS = 8;
const presigned = Array.from({ length: BLOCKS + 2 }, swapBodies);
let next = 0;
const chainBench = new Bench({ iterations: BLOCKS, time: 0, warmup: false });
chainBench.add(
  `block of ${FULL} swaps of one pool: execute + clear + commit (in memory)`,
  async () => {
    await f.block();
  },
  {
    beforeEach: async () => {
      for (const b of presigned[next++]!) await f.chain.admitOperation('swap', b, {}, 0);
    },
  },
);
await chainBench.run();
console.table(chainBench.table());

// Admission throughput: pre-signed swaps admitted one after another (two signature checks each).
const admitted = swapBodies();
const t0 = process.hrtime.bigint();
for (const b of admitted) await f.chain.admitOperation('swap', b, {}, 0);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(`swaps admitted on one node: ${admitted.length} in ${seconds.toFixed(3)} s = ${(admitted.length / seconds).toFixed(0)} per second (ch-tx-v4 and _psig verified by ${provider.name}, checks on committed state)`);
await f.block();
