import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attributeMainThreads, formatAttribution, leafKind, ownerOf, perfSamples, PERF_HZ } from './perf-attribution.js';

// `perf script -F pid,tid,time,ip,sym,dso`, abridged from a 10^6-account load run.
const SCRIPT = `
 1043/1043  14240.659843: 
\t          7f6820018878 JS:*rebuild file:///x/dist/kernel/state/tree/rewrite.js:333:18 (/tmp/perf-1043.map)
\t          7f6820018999 JS:^update file:///x/dist/kernel/state/tree/state-tree.js:91:17 (/tmp/perf-1043.map)

 1043/1043  14240.663187: 
\t          1a2b3c _int_malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t          0 [unknown] ([unknown])

 1043/1050  14240.663190: 
\t          1a2b3c leveldb::DBImpl::Get (/x/node_modules/classic-level/prebuilds/linux-x64/classic-level.node)

 1044/1044  14240.670001: 
\t          155e376 Builtins_FindOrderedHashMapEntry (/usr/bin/node)
\t          7f6820018878 JS:*get /x/node_modules/lru-cache/dist/esm/index.js:1:1 (/tmp/perf-1044.map)
\t          7f6820018879 JS:*cachedState file:///x/dist/kernel/store/chain-store.js:10:3 (/tmp/perf-1044.map)
\t          7f682001887a JS:*beforeTransfer file:///x/dist/plugins/sentinel/index.js:88:3 (/tmp/perf-1044.map)

 9999/9999  14240.680000: 
\t          155e376 Builtins_LoadIC (/usr/bin/node)
`;

test('perf samples: the main threads of the chosen processes, each by its innermost own frame and by its leaf', async () => {
  const samples = perfSamples(SCRIPT.split('\n'));
  const a = await attributeMainThreads(samples, new Set([1043, 1044]));
  assert.equal(a.mainSamples, 3);
  assert.equal(a.otherSamples, 1, "thread 1050 is 1043's, not its main thread; pid 9999 is not asked for");
  assert.deepEqual(Object.fromEntries(a.byOwner), { 'kernel/state/tree': 1, '(no JS of ours on the stack)': 1, 'kernel/store': 1 });
  assert.deepEqual(Object.fromEntries(a.byKind), { JavaScript: 1, 'libc (malloc, memcpy…)': 1, 'V8 builtins': 1 });
  const lines = formatAttribution(a, 2);
  const msPerTx = (n: number): string => ((n * 1000) / PERF_HZ / 2).toFixed(3);
  assert.equal(lines[0], `perf, CPU ms per committed tx summed over the validators: main threads ${msPerTx(3)}, their other threads ${msPerTx(1)}`);
});

test('an owner is the innermost frame of the project, a library under it included; a leaf kind names native code', () => {
  assert.equal(ownerOf(['Builtins_X (/usr/bin/node)', 'JS:*get /x/node_modules/lru-cache/index.js:1:1 (/tmp/perf-1.map)', 'JS:*f file:///x/dist/plugins/names/index.js:1:1 (/tmp/perf-1.map)', 'JS:*g file:///x/dist/kernel/chain/chain.js:1:1 (/tmp/perf-1.map)']), 'plugins/names');
  assert.equal(ownerOf([]), '(no JS of ours on the stack)');
  assert.equal(leafKind('v8::internal::Scavenger::ScavengePage (/usr/bin/node)'), 'GC');
  assert.equal(leafKind('__KeccakF1600 (/usr/bin/node)'), 'crypto and checksums (native)');
  assert.equal(leafKind('clear_page_erms ([kernel.kallsyms])'), 'kernel');
  assert.equal(leafKind(undefined), 'unknown');
});
