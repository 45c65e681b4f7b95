import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clearBatch, type BatchSwap, type Clearing, type Outcome } from './clearing.js';
import { initialShares, isqrt, liquidityToAdd, liquidityToRemove, MAX_AMOUNT, quoteAlone, swapFees } from './math.js';

/** A swap with the default fees (30 + 5 bps) computed as the operation does. */
function swapOf(side: 'x' | 'y', amountIn: bigint, minOut = 0n, deadlineHeight = 100, lp = 30n, pr = 5n): BatchSwap {
  const f = swapFees(amountIn, lp, pr);
  return { side, amountIn, minOut, deadlineHeight, net: f.net, lpFee: f.lpFee, protocolFee: f.protocolFee };
}

/** §59 transcribed literally, round by round, O(n²): the reference the fast clearing must equal. */
function literal(height: number, reserveX: bigint, reserveY: bigint, swaps: readonly BatchSwap[]): Clearing {
  const outcomes: Array<Outcome | undefined> = swaps.map((s) => (s.deadlineHeight < height ? { status: 'refunded', reason: 'deadline' } : undefined));
  let f = swaps.map((_, i) => i).filter((i) => outcomes[i] === undefined);
  let num = reserveY;
  let den = reserveX;
  const out = (i: number): bigint => (swaps[i]!.side === 'x' ? (swaps[i]!.net * num) / den : (swaps[i]!.net * den) / num);
  for (;;) {
    const a = f.filter((i) => swaps[i]!.side === 'x').reduce((s, i) => s + swaps[i]!.net, 0n);
    const b = f.filter((i) => swaps[i]!.side === 'y').reduce((s, i) => s + swaps[i]!.net, 0n);
    num = reserveY + b;
    den = reserveX + a;
    const failing = f.filter((i) => out(i) < swaps[i]!.minOut);
    if (failing.length === 0) break;
    for (const i of failing) outcomes[i] = { status: 'refunded', reason: 'min_out' };
    f = f.filter((i) => !failing.includes(i));
  }
  let x = reserveX;
  let y = reserveY;
  let burnedX = 0n;
  let burnedY = 0n;
  for (const i of f) {
    const s = swaps[i]!;
    const o = out(i);
    outcomes[i] = { status: 'filled', amountOut: o };
    if (s.side === 'x') [x, y, burnedX] = [x + s.net + s.lpFee, y - o, burnedX + s.protocolFee];
    else [x, y, burnedY] = [x - o, y + s.net + s.lpFee, burnedY + s.protocolFee];
  }
  return { outcomes: outcomes as Outcome[], reserveX: x, reserveY: y, burnedX, burnedY, priceNum: num, priceDen: den, filled: f.length, refunded: swaps.length - f.length };
}

test('fees at 0 and at the bounds: ceil for the total, floor for the protocol share, net = amount − fee', () => {
  assert.deepEqual(swapFees(10_000n, 0n, 0n), { fee: 0n, protocolFee: 0n, lpFee: 0n, net: 10_000n });
  assert.deepEqual(swapFees(1n, 30n, 5n), { fee: 1n, protocolFee: 0n, lpFee: 1n, net: 0n }, 'any fee on 1 unit rounds up to the whole unit');
  assert.deepEqual(swapFees(5_000n, 30n, 5n), { fee: 18n, protocolFee: 2n, lpFee: 16n, net: 4_982n });
  assert.deepEqual(swapFees(10_000n, 0n, 1_000n), { fee: 1_000n, protocolFee: 1_000n, lpFee: 0n, net: 9_000n });
  const top = swapFees(MAX_AMOUNT, 1_000n, 1_000n);
  assert.equal(top.fee, (MAX_AMOUNT * 2_000n + 9_999n) / 10_000n);
  assert.equal(top.protocolFee, (MAX_AMOUNT * 1_000n) / 10_000n);
  assert.equal(top.net + top.fee, MAX_AMOUNT);
});

test('floor(√) is exact at 2^106 and around it, and at every small number', () => {
  const two53 = 1n << 53n;
  assert.equal(isqrt(1n << 106n), two53);
  assert.equal(isqrt((1n << 106n) - 1n), two53 - 1n);
  assert.equal(isqrt(MAX_AMOUNT * MAX_AMOUNT), MAX_AMOUNT);
  assert.equal(isqrt(MAX_AMOUNT * MAX_AMOUNT - 1n), MAX_AMOUNT - 1n);
  for (let n = 0n; n < 2_000n; n++) {
    const r = isqrt(n);
    assert.ok(r * r <= n && (r + 1n) * (r + 1n) > n, `isqrt(${n}) = ${r}`);
  }
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 1n << 128n }), (n) => {
    const r = isqrt(n);
    return r * r <= n && (r + 1n) * (r + 1n) > n;
  }), { seed: 33, numRuns: 500 });
});

test('shares and amounts at 2^53 − 1: the initial shares, an addition and a removal stay exact', () => {
  assert.equal(initialShares(MAX_AMOUNT, MAX_AMOUNT), MAX_AMOUNT);
  assert.equal(initialShares(MAX_AMOUNT, 1n), isqrt(MAX_AMOUNT));
  const add = liquidityToAdd(MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT);
  assert.deepEqual(add, { shares: MAX_AMOUNT, amountX: MAX_AMOUNT, amountY: MAX_AMOUNT });
  // Rounded in the pool's favour: the shares down, the amounts taken up.
  const odd = liquidityToAdd(10n, 10n, 3n, 7n, 5n);
  assert.deepEqual(odd, { shares: 7n, amountX: 5n, amountY: 10n });
  assert.deepEqual(liquidityToRemove(MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT), { amountX: MAX_AMOUNT, amountY: MAX_AMOUNT });
  assert.deepEqual(liquidityToRemove(1n, 3n, 7n, 5n), { amountX: 0n, amountY: 1n });
  assert.deepEqual(quoteAlone(MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT), { amountOut: MAX_AMOUNT / 2n, priceImpactBps: 5_000n });
});

test('the worked example of the README: an unmet min_out leaves the batch and the price is recomputed', () => {
  const swaps = [swapOf('x', 10_000n), swapOf('y', 30_000n), swapOf('x', 5_000n, 10_000n)];
  const c = clearBatch(10, 1_000_000n, 2_000_000n, swaps);
  assert.deepEqual(c.outcomes, [{ status: 'filled', amountOut: 20_028n }, { status: 'filled', amountOut: 14_874n }, { status: 'refunded', reason: 'min_out' }]);
  assert.deepEqual([c.priceNum, c.priceDen, c.reserveX, c.reserveY, c.burnedX, c.burnedY], [2_029_895n, 1_009_965n, 995_121n, 2_009_957n, 5n, 15n]);
  assert.deepEqual(c, literal(10, 1_000_000n, 2_000_000n, swaps));
});

test('a batch of one side only pays at (Y)/(X + A); both sides netting to zero leave the reserves but for the LP fees', () => {
  const one = clearBatch(5, 1_000_000n, 1_000_000n, [swapOf('x', 100_000n, 0n, 5, 0n, 0n), swapOf('x', 100_000n, 0n, 5, 0n, 0n)]);
  assert.deepEqual([one.priceNum, one.priceDen], [1_000_000n, 1_200_000n]);
  assert.deepEqual(one.outcomes, [{ status: 'filled', amountOut: 83_333n }, { status: 'filled', amountOut: 83_333n }]);
  assert.deepEqual([one.reserveX, one.reserveY], [1_200_000n, 833_334n]);
  const netted = clearBatch(5, 1_000_000n, 1_000_000n, [swapOf('x', 100_000n), swapOf('y', 100_000n)]);
  assert.deepEqual([netted.priceNum, netted.priceDen], [1_099_650n, 1_099_650n]);
  assert.deepEqual(netted.outcomes, [{ status: 'filled', amountOut: 99_650n }, { status: 'filled', amountOut: 99_650n }]);
  assert.deepEqual([netted.reserveX, netted.reserveY, netted.burnedX, netted.burnedY], [1_000_300n, 1_000_300n, 50n, 50n]);
});

test('a cascade of min_out removals: dropping a demanding swap moves the price against another, which drops in the next round', () => {
  const swaps = [swapOf('y', 100_000n, 100_000n, 9, 0n, 0n), swapOf('x', 10_000n, 10_500n, 9, 0n, 0n), swapOf('x', 1_000n, 0n, 3, 0n, 0n)];
  const c = clearBatch(5, 1_000_000n, 1_000_000n, swaps);
  assert.deepEqual(c.outcomes, [{ status: 'refunded', reason: 'min_out' }, { status: 'refunded', reason: 'min_out' }, { status: 'refunded', reason: 'deadline' }]);
  assert.deepEqual([c.priceNum, c.priceDen, c.filled, c.refunded], [1_000_000n, 1_000_000n, 0, 3], 'nothing filled: the price is Y / X');
  assert.deepEqual([c.reserveX, c.reserveY], [1_000_000n, 1_000_000n]);
  assert.deepEqual(c, literal(5, 1_000_000n, 1_000_000n, swaps));
});

const arbSwap = fc.record({
  side: fc.constantFrom<'x' | 'y'>('x', 'y'),
  amountIn: fc.oneof(fc.bigInt({ min: 1n, max: 1_000n }), fc.bigInt({ min: 1n, max: MAX_AMOUNT })),
  minOut: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 1_000_000n }), fc.bigInt({ min: 0n, max: MAX_AMOUNT })),
  deadlineHeight: fc.integer({ min: 8, max: 12 }),
  lp: fc.bigInt({ min: 0n, max: 1_000n }),
  pr: fc.bigInt({ min: 0n, max: 1_000n }),
});
const arbBatch = fc.record({
  x: fc.oneof(fc.bigInt({ min: 1n, max: 10n }), fc.bigInt({ min: 1n, max: MAX_AMOUNT })),
  y: fc.oneof(fc.bigInt({ min: 1n, max: 10n }), fc.bigInt({ min: 1n, max: MAX_AMOUNT })),
  swaps: fc.array(arbSwap, { maxLength: 30 }),
  seed: fc.integer(),
});

test('property: the batch equals the literal rule, is independent of the order of its swaps, conserves every unit and never empties a reserve', () => {
  fc.assert(
    fc.property(arbBatch, ({ x, y, swaps: raw, seed }) => {
      const swaps = raw.map((s) => swapOf(s.side, s.amountIn, s.minOut, s.deadlineHeight, s.lp, s.pr));
      const c = clearBatch(10, x, y, swaps);
      assert.deepEqual(c, literal(10, x, y, swaps));
      assert.ok(c.reserveX >= 1n && c.reserveY >= 1n);
      // Every unit paid in is in a reserve, an output, a refund or burned.
      let outX = 0n;
      let outY = 0n;
      let inX = 0n;
      let inY = 0n;
      swaps.forEach((s, i) => {
        const o = c.outcomes[i]!;
        if (s.side === 'x') inX += s.amountIn;
        else inY += s.amountIn;
        const back = o.status === 'refunded' ? s.amountIn : 0n;
        const got = o.status === 'filled' ? o.amountOut : 0n;
        if (s.side === 'x') [outX, outY] = [outX + back, outY + got];
        else [outX, outY] = [outX + got, outY + back];
      });
      assert.equal(x + inX, c.reserveX + outX + c.burnedX);
      assert.equal(y + inY, c.reserveY + outY + c.burnedY);
      // A shuffle (seeded) gives every swap the same outcome and the pool the same result.
      const order = swaps.map((_, i) => i);
      let r = seed >>> 0;
      for (let i = order.length - 1; i > 0; i--) {
        r = (Math.imul(r, 1_103_515_245) + 12_345) >>> 0;
        const j = r % (i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const shuffled = clearBatch(10, x, y, order.map((i) => swaps[i]!));
      assert.deepEqual(order.map((i) => c.outcomes[i]), shuffled.outcomes);
      assert.deepEqual({ ...shuffled, outcomes: [] }, { ...c, outcomes: [] });
    }),
    { seed: 3359, numRuns: 400 },
  );
});
