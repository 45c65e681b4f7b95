import { test } from 'node:test';
import assert from 'node:assert/strict';
import { networkFigures, type BlockPoint } from './network-figures.js';

function chain(points: Array<[number, number]>): Map<number, BlockPoint> {
  return new Map(points.map(([timestamp, tx_count], i) => [i + 1, { timestamp, tx_count }]));
}

test('block time is the median gap of the last 100 blocks; TPS counts the last 10 blocks over the time since the block before them', () => {
  // 120 blocks: 200 ms apart, except every fifth 1 000 ms apart; 4 transactions each.
  const points: Array<[number, number]> = [];
  let t = 1_000_000;
  for (let h = 1; h <= 120; h++) {
    t += h % 5 === 0 ? 1000 : 200;
    points.push([t, 4]);
  }
  const f = networkFigures(chain(points), 120);
  assert.equal(f.block_time_ms, 200, 'the median ignores the slow fifth');
  // Blocks 111..120: 40 transactions; from block 110 to block 120: 8 × 200 + 2 × 1000 = 3 600 ms.
  assert.equal(f.tps, 40_000 / 3600);
  assert.equal(f.tps_peak, 20, 'the chain\'s first windows (blocks 2 to 4, 200 ms apart, from block 1) had no slow gap');
});

test('the peak is the busiest 10-block window of the last 1 000 blocks; an even count of gaps takes the middle two', () => {
  const points: Array<[number, number]> = [];
  for (let h = 1; h <= 30; h++) points.push([h * 1000, h >= 11 && h <= 20 ? 50 : 1]);
  const f = networkFigures(chain(points), 30);
  assert.equal(f.tps, 1);
  assert.equal(f.tps_peak, 50, 'blocks 11..20 over the 10 s from block 10');
  assert.equal(networkFigures(chain([[0, 0], [100, 0], [400, 0]]), 3).block_time_ms, 200, 'gaps 100 and 300');
});

test('a young chain: nothing to measure before two blocks; windows start at block 1', () => {
  assert.deepEqual(networkFigures(new Map(), 0), { block_time_ms: null, tps: 0, tps_peak: 0 });
  assert.deepEqual(networkFigures(chain([[5000, 3]]), 1), { block_time_ms: null, tps: 0, tps_peak: 0 });
  const f = networkFigures(chain([[1000, 7], [1500, 2], [2500, 3]]), 3);
  assert.equal(f.block_time_ms, 750);
  assert.equal(f.tps, 5 / 1.5, 'blocks 2 and 3 over the 1.5 s from block 1');
});
