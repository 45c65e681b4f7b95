import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flatOutLanes, isTokenTransfer, parsePositiveInt, parseRates, parseTokenMix, parseVia, phasesOf, planRuns, poolsFor, rateLabel, tokenRecipient, transfersFor } from './load-plan.js';

const choices = ['auto', 'noble', 'pqclean', 'node'] as const;
const plan = (opts: { run?: string[]; rates?: string; envChoice?: string }) => planRuns({ defaultRates: '20,40', choices, ...opts });

test('rates are positive integers, with flat out allowed only last', () => {
  assert.deepEqual(parseRates('20,40,max', '--rates'), [20, 40, 'max']);
  assert.deepEqual(parseRates('max', '--rates'), ['max']);
  for (const bad of ['', '0', '-5', '1.5', '20,,40', '20,x', '010', ' 20']) {
    assert.throws(() => parseRates(bad, '--rates'), /--rates: rates must be positive integers or "max" \(flat out\)/, bad);
  }
  assert.throws(() => parseRates('max,40', '--rates'), /"max" \(flat out\) can only be the last rate, got "max,40"/);
  assert.throws(() => parseRates('20,max,max', '--rates'), /can only be the last rate/);
});

test('--run names a provider and its rates; each provider once; not beside --rates', () => {
  assert.deepEqual(plan({ run: ['noble=40,max', 'pqclean=130'] }), [
    { choice: 'noble', rates: [40, 'max'] },
    { choice: 'pqclean', rates: [130] },
  ]);
  assert.throws(() => plan({ run: ['rust=40'] }), /--run rust=40: expected <auto\|noble\|pqclean\|node>=<rates>/);
  assert.throws(() => plan({ run: ['noble'] }), /expected <auto/);
  assert.throws(() => plan({ run: ['noble=40', 'noble=80'] }), /--run noble given twice/);
  assert.throws(() => plan({ run: ['noble=40'], rates: '20' }), /--rates and --run both given/);
  assert.throws(() => plan({ run: ['noble=max,40'] }), /--run noble=max,40: "max" \(flat out\) can only be the last rate/);
});

test('without --run: CHAIN_CRYPTO_PROVIDER (auto if unset) at --rates or the default rates', () => {
  assert.deepEqual(plan({}), [{ choice: 'auto', rates: [20, 40] }]);
  assert.deepEqual(plan({ envChoice: 'noble', rates: '10,max' }), [{ choice: 'noble', rates: [10, 'max'] }]);
  assert.throws(() => plan({ envChoice: 'fast' }), /CHAIN_CRYPTO_PROVIDER=fast: expected one of auto, noble, pqclean, node/);
});

test('--via is nodes or gateway; counts are positive integers', () => {
  assert.equal(parseVia('nodes'), 'nodes');
  assert.equal(parseVia('gateway'), 'gateway');
  assert.throws(() => parseVia('ws'), /--via ws: expected nodes or gateway/);
  assert.equal(parsePositiveInt('64', '--inflight'), 64);
  for (const bad of ['0', '-1', '2.5', 'x', '']) assert.throws(() => parsePositiveInt(bad, '--inflight'), /--inflight: expected a positive integer/, bad);
});

test('the warm-up runs at the first rate, then every rate for the timed seconds', () => {
  assert.deepEqual(phasesOf([40, 'max'], 20, 5), [
    { rate: 40, seconds: 5, warm: true },
    { rate: 40, seconds: 20, warm: false },
    { rate: 'max', seconds: 20, warm: false },
  ]);
  assert.deepEqual(phasesOf(['max'], 20, 0), [{ rate: 'max', seconds: 20, warm: false }]);
  assert.equal(rateLabel(40), '40 tx/s');
  assert.equal(rateLabel('max'), 'flat out');
});

test('a fixed rate pre-signs rate × seconds; flat out enough for C per second, within the cap', () => {
  assert.equal(transfersFor({ rate: 40, seconds: 20, warm: false }, 150, 100), 800, 'the cap is for flat out only');
  assert.equal(transfersFor({ rate: 'max', seconds: 20, warm: false }, 149.2, 12_000), 2984);
  assert.equal(transfersFor({ rate: 'max', seconds: 20, warm: false }, 1976, 12_000), 12_000);
  assert.equal(transfersFor({ rate: 'max', seconds: 1, warm: true }, 0.2, 12_000), 1);
});

test('a flat-out warm-up and the timed flat out after it send from one pool; other phases each from their own', () => {
  const onlyMax = phasesOf(['max'], 20, 5);
  assert.deepEqual(poolsFor(onlyMax, 100, 12_000), { sizes: [2500], poolOf: [0, 0] }, '(5 + 20) s × C 100');
  assert.deepEqual(poolsFor(phasesOf([40, 'max'], 20, 5), 100, 12_000), { sizes: [200, 800, 2000], poolOf: [0, 1, 2] });
  assert.deepEqual(poolsFor(phasesOf(['max'], 20, 0), 100, 12_000), { sizes: [2000], poolOf: [0] });
  assert.deepEqual(poolsFor(onlyMax, 1976, 12_000), { sizes: [12_000], poolOf: [0, 0] }, 'the cap holds for the shared pool too');
});

test('flat-out lanes never share an account, keep each account in nonce order, and cover the pool once', () => {
  const accounts = 10;
  for (const inflight of [1, 3, 4, 10, 64]) {
    const lanes = flatOutLanes(95, accounts, inflight);
    assert.equal(lanes.length, Math.min(inflight, accounts));
    assert.deepEqual(
      lanes.flat().sort((a, b) => a - b),
      Array.from({ length: 95 }, (_, k) => k),
      `inflight ${inflight}: every transfer once`,
    );
    const laneOfAccount = new Map<number, number>();
    lanes.forEach((lane, j) => {
      lane.forEach((k, n) => {
        const account = k % accounts;
        assert.equal(laneOfAccount.get(account) ?? j, j, `inflight ${inflight}: account ${account} in one lane`);
        laneOfAccount.set(account, j);
        if (n > 0) assert.ok(k > lane[n - 1]!, 'pool order within a lane');
      });
    });
  }
});

test('--token-mix is a share from 0 to 1 in thousandths, spread evenly over a pool', () => {
  assert.deepEqual(['0', '1', '0.5', '0.25', '0.125', '1.0', '0.05'].map(parseTokenMix), [0, 1000, 500, 250, 125, 1000, 50]);
  for (const bad of ['', '2', '1.5', '-0.5', '0.1234', '.5', 'half', '1.001']) assert.throws(() => parseTokenMix(bad), /--token-mix .*: expected a share from 0 to 1/, bad);
  const kinds = (n: number, p: number) => Array.from({ length: n }, (_, k) => isTokenTransfer(k, p));
  assert.deepEqual(kinds(6, 500), [false, true, false, true, false, true]);
  assert.ok(kinds(100, 0).every((x) => !x));
  assert.ok(kinds(100, 1000).every((x) => x));
  for (const p of [1, 125, 333, 500, 999]) {
    const ks = kinds(3000, p);
    assert.equal(ks.slice(0, 1000).filter(Boolean).length, p, `first 1000 at ${p}`);
    // Every stretch of 100 carries the mix to within one transfer.
    for (let s = 0; s + 100 <= 3000; s += 100) assert.ok(Math.abs(ks.slice(s, s + 100).filter(Boolean).length - p / 10) <= 1, `stretch ${s} at ${p}`);
  }
  assert.deepEqual([0, 1, 2].map((i) => tokenRecipient(i, 3)), [1, 2, 0]);
});
