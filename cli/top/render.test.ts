import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderFrame } from './render.js';
import type { NodeSnapshot } from './snapshot.js';
import { wantsColor } from './driver.js';

const node = (i: number, height: number, extra: Partial<NodeSnapshot & { up: true }> = {}): NodeSnapshot => ({
  url: `http://127.0.0.1:${9933 + i}`,
  up: true,
  node_address: `chain:validator-${i}.node`,
  moniker: `validator-${i}`,
  height,
  round: 0,
  proposer: `chain:validator-${height % 4}.node`,
  tps: 12,
  mempool: 3,
  peers: 3,
  since_block_s: 0.4,
  ...extra,
});

test('rising heights: each frame shows every node at its height, the highest in the summary', () => {
  const first = renderFrame([node(0, 41), node(1, 41), node(2, 40), node(3, 41)], 100, { color: false });
  assert.equal(first, [
    'chain top  4 node(s), 4 up, height 41',
    'NODE                    HEIGHT  ROUND  PROPOSER                TPS  MEMPOOL  PEERS  LAST BLOCK',
    'chain:validator-0.node      41      0  chain:validator-1.node   12        3      3        0.4s',
    'chain:validator-1.node      41      0  chain:validator-1.node   12        3      3        0.4s',
    'chain:validator-2.node      40      0  chain:validator-0.node   12        3      3        0.4s',
    'chain:validator-3.node      41      0  chain:validator-1.node   12        3      3        0.4s',
  ].join('\n'));
  const next = renderFrame([node(0, 42), node(1, 42), node(2, 42), node(3, 42, { round: 1, since_block_s: 12.25 })], 100, { color: false });
  assert.match(next, /^chain top {2}4 node\(s\), 4 up, height 42$/m);
  assert.match(next, /^chain:validator-3\.node {6}42 {6}1 {2}chain:validator-2\.node {3}12 {8}3 {6}3 {7}12\.3s$/m);
});

test('a down node is a row of its own, keeping its last known address; the others are unchanged', () => {
  const frame = renderFrame([node(0, 50), { url: 'http://127.0.0.1:9934', up: false, node_address: 'chain:validator-1.node', error: 'ECONNREFUSED' }, node(2, 50)], 100, { color: false });
  assert.equal(frame.split('\n')[0], 'chain top  3 node(s), 2 up, height 50');
  assert.equal(frame.split('\n')[3], 'chain:validator-1.node  down (ECONNREFUSED)');
  const never = renderFrame([{ url: 'http://10.0.0.9:9933', up: false, node_address: null, error: 'timeout' }], 100, { color: false });
  assert.equal(never.split('\n')[2], 'http://10.0.0.9:9933  down (timeout)');
});

test('a narrow terminal drops the least telling columns first and never prints a line wider than itself', () => {
  const snaps = [node(0, 7), node(1, 6), { url: 'http://127.0.0.1:9935', up: false as const, node_address: 'chain:validator-2.node', error: 'ECONNREFUSED' }];
  const at64 = renderFrame(snaps, 64, { color: false });
  assert.equal(at64, [
    'chain top  3 node(s), 2 up, height 7',
    'NODE                    HEIGHT  PROPOSER       PEERS  LAST BLOCK',
    'chain:validator-0.node       7  chain:valida…      3        0.4s',
    'chain:validator-1.node       6  chain:valida…      3        0.4s',
    'chain:validator-2.node  down (ECONNREFUSED)',
  ].join('\n'));
  assert.equal(renderFrame(snaps, 60, { color: false }).split('\n')[1], 'NODE                    HEIGHT  PEERS  LAST BLOCK', 'below its 10 columns the proposer goes');
  for (const width of [20, 32, 45, 60, 80]) {
    for (const line of renderFrame(snaps, width, { color: false }).split('\n')) assert.ok(line.length <= width, `${width}: "${line}"`);
  }
  assert.deepEqual(renderFrame(snaps, 24, { color: false }).split('\n').slice(1, 3), ['NODE              HEIGHT', 'chain:validator…       7'], 'then the address is cut');
});

test('colour only when asked: red for down, yellow for a node behind; no escape otherwise; NO_COLOR wins over a terminal', () => {
  const snaps = [node(0, 9), node(1, 8), { url: 'http://127.0.0.1:9935', up: false as const, node_address: null, error: 'ECONNREFUSED' }];
  const plain = renderFrame(snaps, 100, { color: false });
  assert.ok(!plain.includes('\x1b'), 'no ANSI escape');
  const coloured = renderFrame(snaps, 100, { color: true });
  assert.match(coloured, /\x1b\[31mhttp:\/\/127\.0\.0\.1:9935 .*down \(ECONNREFUSED\)\x1b\[0m/);
  assert.match(coloured, /\x1b\[33m {5}8\x1b\[0m/);
  assert.equal(coloured.replace(/\x1b\[[0-9;]*m/g, ''), plain, 'the same frame under the colours');
  assert.equal(wantsColor({ isTTY: true }, {}), true);
  assert.equal(wantsColor({ isTTY: true }, { NO_COLOR: '1' }), false);
  assert.equal(wantsColor({ isTTY: false }, {}), false);
});
