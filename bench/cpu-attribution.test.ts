import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocationUnder, attributeAllocation, attributeCpu, HOOK_DISPATCH, KERNEL, VERIFY, type HeapProfileNode } from './cpu-attribution.js';

const frame = (url: string, functionName = 'f') => ({ url, functionName });

test('each CPU sample goes to the innermost plugin on its stack, else hook dispatch, else the kernel', () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('', '(root)'), children: [2, 7, 10] },
      { id: 2, callFrame: frame('file:///x/dist/kernel/chain/executor.js'), children: [3, 8] },
      { id: 3, callFrame: frame('', 'anonymous'), children: [4] },
      { id: 4, callFrame: frame('file:///x/dist/kernel/host/host.js'), children: [5] },
      { id: 5, callFrame: frame('file:///x/dist/plugins/sentinel/index.js'), children: [6] },
      { id: 6, callFrame: frame('file:///x/dist/kernel/state/overlay.js'), children: [] },
      { id: 7, callFrame: frame('', '(garbage collector)'), children: [] },
      { id: 8, callFrame: frame('file:///x/dist/plugins/staking/rewards.js'), children: [9] },
      { id: 9, callFrame: frame('file:///x/dist/plugins/names/index.js'), children: [] },
      { id: 10, callFrame: frame('file:///x/dist/kernel/chain/admission.js'), children: [11] },
      { id: 11, callFrame: frame('file:///x/dist/kernel/crypto/providers/pqclean.js'), children: [12] },
      { id: 12, callFrame: frame('wasm://wasm/abc', 'verify'), children: [] },
    ],
    samples: [6, 5, 4, 2, 7, 9, 8, 12],
    timeDeltas: [10, 20, 30, 40, 50, 60, 70, 80],
  };
  const totals = attributeCpu(profile);
  assert.equal(totals.get('sentinel'), 30);
  assert.equal(totals.get(HOOK_DISPATCH), 30);
  assert.equal(totals.get(KERNEL), 40);
  assert.equal(totals.get('(garbage collector)'), 50);
  assert.equal(totals.get('names'), 60);
  assert.equal(totals.get('staking'), 70);
  assert.equal(totals.get(VERIFY), 80);
});

test('allocation goes to the innermost plugin the same way', () => {
  const node = (url: string, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode => ({ callFrame: frame(url), selfSize, children });
  const head = node('', 0, [
    node('file:///x/dist/kernel/chain/chain.js', 100, [
      node('file:///x/dist/kernel/host/host.js', 5, [node('file:///x/dist/plugins/session/index.js', 7, [node('file:///x/dist/kernel/codec/json.js', 11)])]),
    ]),
  ]);
  const totals = attributeAllocation(head);
  assert.equal(totals.get(KERNEL), 100);
  assert.equal(totals.get(HOOK_DISPATCH), 5);
  assert.equal(totals.get('session'), 18);
});

test("a module's allocation: everything under its frames, by its innermost frame and the callee outside it that allocated", () => {
  const at = (url: string, functionName: string, lineNumber: number, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode => ({ callFrame: { url, functionName, lineNumber }, selfSize, children });
  const tree = (name: string): string => `file:///x/dist/kernel/state/tree/${name}.js`;
  const head = at('', '(root)', -1, 0, [
    at('file:///x/dist/bench/state-tree.bench.js', 'run', 10, 1000, [
      at(tree('state-tree'), 'update', 99, 3, [
        at(tree('rewrite'), 'expand', 199, 40, [at('', 'subarray', -1, 20)]),
        at('file:///x/dist/kernel/store/level-store.js', 'getMany', 50, 7),
      ]),
    ]),
  ]);
  const { total, bySite } = allocationUnder(head, (url) => url.includes('/state/tree/'));
  assert.equal(total, 70, 'the bench frame above the tree is not the tree');
  assert.deepEqual(Object.fromEntries(bySite), {
    'update (state-tree.js:100)': 3,
    'expand (rewrite.js:200)': 40,
    'expand (rewrite.js:200) → subarray': 20,
    'update (state-tree.js:100) → getMany': 7,
  });
});
