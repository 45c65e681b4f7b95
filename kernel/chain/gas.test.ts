import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, signTransfer, VALIDATOR_KEY, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { deriveAddress } from '../crypto/address.js';
import { METERED_OP_BASE_GAS, METER_ADDRESS, METER_BASE_GAS, meterPlugin, type MeterOrder } from '../../test/fixtures/gas-test-plugins.js';
import { blockHash, txRoot } from './block-hash.js';
import type { Receipt } from '../model/types.js';

const alice = wallet(61);
const bob = wallet(62);
/** The fixture's proposer is chain:v0.node; its fee share goes to its owner (decisions.md §30). */
const PROPOSER = 'chain:v0.node';
const PROPOSER_OWNER = deriveAddress(VALIDATOR_KEY.publicKey);
const COIN = 1_000_000n;

const chainOf = (opts: { maxBlockGas?: number; requireTxV3?: boolean; balance?: bigint } = {}): Promise<Fixture> =>
  makeChain({
    plugins: [meterPlugin],
    accounts: [{ address: alice.address, balance: opts.balance ?? COIN }],
    ...(opts.maxBlockGas !== undefined ? { genesisParams: { max_block_gas: String(opts.maxBlockGas) } } : {}),
    ...(opts.requireTxV3 !== undefined ? { requireTxV3: opts.requireTxV3 } : {}),
  });

/** A signed transaction to the meter: ch-tx-v4, the one layout that covers a gas_limit (decisions.md §94–95). */
const metered = (nonce: number, order: MeterOrder, extra: { gas_limit?: number; gas_price?: number } = {}): Record<string, unknown> =>
  signTransfer(alice, { to: METER_ADDRESS, value: 0, nonce, data: JSON.stringify(order), ...extra });

async function receiptOf(f: Fixture, hash: string): Promise<Receipt> {
  const st = await f.chain.queries.getTx(hash);
  assert.ok(st, `transaction ${hash} is stored`);
  return st.receipt;
}

test('a transaction pays gas used × gas_price, up to its gas_limit; the unused limit burns base_fee per gas, the rest of its price comes back; the proposer gets its share of what was used', async () => {
  const f = await chainOf();
  const before = (await f.account(alice.address)).balance;
  const r = await f.chain.admit(metered(1, { gas: 70 }, { gas_limit: 100, gas_price: 3 }), 0);
  const b = await f.block();
  const receipt = await receiptOf(f, r.tx_hash);
  assert.deepEqual([receipt.status, receipt.gas, receipt.fee, receipt.fee_burned, receipt.unused_gas_fee], ['confirmed', 70, 210n, 70n, 30n], 'fee = gas used × gas_price (part 1, Amounts 4)');
  assert.equal((await f.account(alice.address)).balance, before - 210n - 30n, '70 gas at price 3, and base fee 1 for each of the 30 reserved and unused; 30 × 2 came back');
  assert.equal((await f.account(PROPOSER_OWNER)).balance, 140n, '70 × (3 − base fee 1)');
  assert.equal(b.gas_used, 70, 'the block counts the gas used, not the limit');
  assert.equal(b.fees_burned, 100n, 'the used gas\'s base fee and the unused reservation');
  const stored = await f.chain.queries.state.get(`meter/ran/${r.tx_hash}`);
  assert.ok(stored, 'the handler\'s write is kept');
  assert.match(new TextDecoder().decode(stored), /"limit":100/, 'the handler saw its limit as ctx.gasLimit');
  assert.deepEqual((await f.chain.queries.getTxEvents(b.header.height, r.tx_hash)).map((e) => e.data), [{ limit: 100 }]);
});

test('beyond its gas_limit a transaction fails out of gas: the fee of the whole limit is charged, its writes and events roll back', async () => {
  const f = await chainOf();
  const before = (await f.account(alice.address)).balance;
  const r = await f.chain.admit(metered(1, { gas: 101 }, { gas_limit: 100, gas_price: 2 }), 0);
  const b = await f.block();
  const receipt = await receiptOf(f, r.tx_hash);
  assert.equal(receipt.status, 'failed');
  assert.equal(receipt.error, 'out of gas: the handler used 101 gas, above the transaction\'s gas limit 100');
  assert.deepEqual([receipt.gas, receipt.fee, receipt.fee_burned], [100, 200n, 100n]);
  assert.equal((await f.account(alice.address)).balance, before - 200n);
  assert.equal((await f.account(alice.address)).nonce, 1n, 'the nonce is consumed');
  assert.equal((await f.account(PROPOSER_OWNER)).balance, 100n);
  assert.equal(await f.chain.queries.state.get(`meter/ran/${r.tx_hash}`), undefined, 'the handler\'s write rolled back');
  assert.deepEqual(await f.chain.queries.getTxEvents(b.header.height, r.tx_hash), [], 'and its event');
  assert.equal(b.gas_used, 100);
});

test('without a gas_limit a transaction may use its base gas: less counts as the base, more is out of gas', async () => {
  const f = await chainOf();
  const under = await f.chain.admit(metered(1, { gas: 10 }), 0);
  const over = await f.chain.admit(metered(2, { gas: METER_BASE_GAS + 1 }), 0);
  const b = await f.block();
  assert.deepEqual([(await receiptOf(f, under.tx_hash)).status, (await receiptOf(f, under.tx_hash)).gas], ['confirmed', METER_BASE_GAS]);
  const o = await receiptOf(f, over.tx_hash);
  assert.equal(o.status, 'failed');
  assert.match(o.error ?? '', /out of gas: the handler used 31 gas, above the transaction's gas limit 30/);
  assert.equal(o.gas, METER_BASE_GAS);
  assert.equal(b.gas_used, 2 * METER_BASE_GAS);
});

test('a failing handler, or one reporting gas that is not a whole number, is charged the base gas; its unused limit burns base_fee per gas', async () => {
  const f = await chainOf();
  const before = (await f.account(alice.address)).balance;
  const r = await f.chain.admit(metered(1, { gas: 50, fail: true }, { gas_limit: 100 }), 0);
  const odd = await f.chain.admit(metered(2, { gas: 50.5 }, { gas_limit: 100 }), 0);
  await f.block();
  const receipt = await receiptOf(f, r.tx_hash);
  assert.deepEqual([receipt.status, receipt.error, receipt.gas, receipt.fee, receipt.unused_gas_fee], ['failed', 'the meter failed on purpose', METER_BASE_GAS, BigInt(METER_BASE_GAS), BigInt(100 - METER_BASE_GAS)]);
  const o = await receiptOf(f, odd.tx_hash);
  assert.deepEqual([o.status, o.error, o.gas], ['failed', 'the handler reported 50.5 gas, not a whole number', METER_BASE_GAS]);
  assert.equal((await f.account(alice.address)).balance, before - 2n * 100n, 'at gas_price = base_fee a declared limit costs all of it');
});

test('an operation\'s reported gas is bounded by the gas_limit in its body (which ch-tx-v4 covers)', async () => {
  const f = await chainOf();
  const work = (nonce: number, w: number, gasLimit?: number) =>
    f.chain.admitOperation('metered_work', signOperation(alice, { kind: 'metered_work', actor: alice.address, target: METER_ADDRESS, nonce, body: { address: alice.address, work: w }, ...(gasLimit !== undefined ? { gas_limit: gasLimit } : {}) }), {}, 0);
  const within = await work(1_700_000_001_000, 45, 60);
  const beyond = await work(1_700_000_001_001, 61, 60);
  const unlimited = await work(1_700_000_001_002, METERED_OP_BASE_GAS + 1);
  const before = (await f.account(alice.address)).balance;
  const b = await f.block();
  const [w, o, u] = await Promise.all([within, beyond, unlimited].map((r) => receiptOf(f, r.tx_hash)));
  assert.deepEqual([w!.status, w!.gas, w!.fee], ['confirmed', 45, 45n]);
  assert.deepEqual([o!.status, o!.gas, o!.fee], ['failed', 60, 60n]);
  assert.match(o!.error ?? '', /out of gas/);
  assert.deepEqual([u!.status, u!.gas], ['failed', METERED_OP_BASE_GAS], 'no gas_limit: the limit is the declared base gas');
  assert.equal(b.gas_used, 45 + 60 + METERED_OP_BASE_GAS);
  assert.equal((await f.account(alice.address)).balance, before - BigInt(45 + 15 + 60 + METERED_OP_BASE_GAS), 'each limit was held; the 15 unused of the first burned at base fee 1');
  assert.match(new TextDecoder().decode(await f.chain.queries.state.get(`meter/work/${within.tx_hash}`)), /"limit":60/);
});

test('admission refuses a gas_limit that is malformed, below the base gas, above max_block_gas, or more than the payer can cover', async () => {
  const f = await chainOf({ maxBlockGas: 1_000, balance: 500n });
  const refused = async (body: Record<string, unknown>, status: number, pattern: RegExp): Promise<void> =>
    assert.rejects(f.chain.admit(body, 0), (e: Error & { status?: number }) => {
      assert.equal(e.status, status, e.message);
      assert.match(e.message, pattern);
      return true;
    });
  await refused({ ...metered(1, { gas: 1 }), gas_limit: 'lots' }, 400, /gas_limit must be a positive integer/);
  await refused({ ...metered(1, { gas: 1 }), gas_limit: 0 }, 400, /gas_limit must be a positive integer/);
  await refused({ ...metered(1, { gas: 1 }), gas_limit: 2.5 }, 400, /gas_limit must be a positive integer/);
  await refused(metered(1, { gas: 1 }, { gas_limit: METER_BASE_GAS - 1 }), 400, /gas_limit 29 is below the 30 gas this transaction is charged before it runs/);
  await refused(signTransfer(alice, { to: bob.address, value: 1, nonce: 1, gas_limit: 20 }), 400, /gas_limit 20 is below the 21 gas/);
  await refused(metered(1, { gas: 1 }, { gas_limit: 1_001 }), 400, /gas_limit 1001 exceeds max_block_gas 1000/);
  await refused(metered(1, { gas: 1 }, { gas_limit: 501 }), 400, /insufficient balance: .* needs 501/);
  // The limit held by a pending transaction counts against the next one.
  await f.chain.admit(metered(1, { gas: 1 }, { gas_limit: 400 }), 0);
  await refused(metered(2, { gas: 1 }, { gas_limit: 101 }), 400, /400 reserved by pending transactions/);
});

test('only ch-tx-v4 covers a declared gas_limit (decisions.md §95): changed after signing, or added to a body signed without it, the signature fails; under v3 or v2 it is 400 on every network', async () => {
  const f = await chainOf();
  const signed = metered(1, { gas: 1 }, { gas_limit: 100 });
  await assert.rejects(f.chain.admit({ ...signed, gas_limit: 99 }, 0), (e: Error & { status?: number }) => e.status === 401 && /invalid signature/.test(e.message));
  const withoutLimit = metered(1, { gas: 1 });
  await assert.rejects(f.chain.admit({ ...withoutLimit, gas_limit: 100 }, 0), (e: Error & { status?: number }) => e.status === 401);
  for (const version of ['v3', 'v2'] as const) {
    await assert.rejects(f.chain.admit(signTransfer(alice, { to: bob.address, value: 1, nonce: 1, gas_limit: 21, version }), 0), (e: Error & { status?: number }) => e.status === 400 && new RegExp(`gas_limit needs a ch-tx-v4 signature: ch-tx-${version} does not cover it`).test(e.message));
  }
  assert.equal((await f.chain.admit(signed, 0)).status, 'pending');
  const strict = await chainOf({ requireTxV3: true });
  await assert.rejects(strict.chain.admit(signTransfer(alice, { to: bob.address, value: 1, nonce: 1, gas_limit: 21, version: 'v3' }), 0), /gas_limit needs a ch-tx-v4 signature/);
  assert.equal((await strict.chain.admit(signTransfer(alice, { to: bob.address, value: 1, nonce: 1, gas_limit: 21 }), 0)).status, 'pending');
});

test('blocks are packed and bounded by gas limits; a validator refuses a block whose limits exceed max_block_gas or that carries a limit below the base gas', async () => {
  const f = await chainOf({ maxBlockGas: 100 });
  const txs = [];
  for (let n = 1; n <= 3; n++) txs.push((await f.chain.admit(metered(n, { gas: 35 }, { gas_limit: 40 }), 0)).tx_hash);
  const p = await f.chain.propose(0, PROPOSER, 1_800_000_000_000);
  assert.deepEqual(p.txs.map((t) => t.hash), txs.slice(0, 2), 'two limits of 40 fit in 100, a third does not');

  const all = await Promise.all(txs.map(async (h) => f.chain.pendingTx(h)!));
  const header = { ...p.header, tx_root: txRoot(txs), tx_count: 3 };
  assert.equal(await f.chain.validate({ header, hash: blockHash(header), txs: all, evidence: [] }), 'block gas 120 (the sum of its transactions\' gas limits) exceeds max_block_gas 100');

  assert.equal(await f.chain.validate(p), null);
  const b1 = await f.chain.finalize(p);
  assert.equal(b1.gas_used, 70, 'gas_used is what the two used, under the 80 they could');
  const b2 = await f.block();
  assert.deepEqual([b2.tx_hashes, b2.gas_used], [[txs[2]], 35]);

  // A limit below the base gas, straight into the pool as a proposer that skipped admission.
  const low = f.chain.rebuildTx('signed', metered(4, { gas: 1 }, { gas_limit: 10 }), 1n, 0);
  f.chain.mempool.add(low);
  const q = await f.chain.propose(0, PROPOSER, 1_800_000_010_000);
  assert.equal(await f.chain.validate(q), `transaction ${low.hash}: gas_limit 10 is below the 30 gas this transaction is charged before it runs`);
  // Executed anyway (finalize without validation), it fails with nothing charged.
  const before = (await f.account(alice.address)).balance;
  await f.chain.finalize(q);
  const r = await receiptOf(f, low.hash);
  assert.deepEqual([r.status, r.gas, r.fee], ['failed', 0, 0n]);
  assert.equal((await f.account(alice.address)).balance, before);
});

test('a handler that fails after metered work (FailedWithGas) is charged the gas it names, kept between base and limit; its writes roll back', async () => {
  const f = await chainOf();
  const before = (await f.account(alice.address)).balance;
  const used = await f.chain.admit(metered(1, { gas: 0, failWithGas: 60 }, { gas_limit: 100 }), 0);
  const above = await f.chain.admit(metered(2, { gas: 0, failWithGas: 500 }, { gas_limit: 100 }), 0);
  const below = await f.chain.admit(metered(3, { gas: 0, failWithGas: 1 }, { gas_limit: 100 }), 0);
  await f.block();
  const [a, b, c] = await Promise.all([used, above, below].map((r) => receiptOf(f, r.tx_hash)));
  assert.deepEqual([a!.status, a!.gas, a!.error], ['failed', 60, 'the meter failed after metered work']);
  assert.equal(b!.gas, 100, 'never above the limit');
  assert.equal(c!.gas, METER_BASE_GAS, 'never below the base');
  assert.equal((await f.account(alice.address)).balance, before - 3n * 100n, 'at gas_price = base_fee each pays its whole limit: used gas as fee, the rest burned unused');
  assert.equal(await f.chain.queries.state.get(`meter/ran/${used.tx_hash}`), undefined, 'the write rolled back');
});
