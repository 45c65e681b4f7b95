/**
 * The genesis writer alone (issue 40, "a million accounts"): `writeGenesisRanges` for N range
 * accounts into a real LevelDB in a temporary directory, in this process, with the process's
 * memory sampled after every store write (rss, heapUsed, external, arrayBuffers) and its CPU. What a
 * validator adds on top of this is its plugins and caches; what this isolates is the writer.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/genesis-write.bench.js [--accounts 1000000] \
 *     [--chunk 16384] [--every 8] [--heap-snapshot-at W]
 *
 * `--chunk C` is the writer's run (accounts, then internal nodes, per store write); `--every K` prints one sample in K writes (the peak is over all of them); `--heap-snapshot-at W`
 * writes a V8 heap snapshot after write W (to the current directory) to see what holds memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { utf8Bytes } from '../kernel/codec/utf8.js';
import { shardView } from '../kernel/crypto/shard.js';
import { GENESIS_RANGE_CHUNK, writeGenesisRanges } from '../kernel/chain/genesis-accounts.js';
import type { KvOp } from '../kernel/state/kv.js';
import { StateTree } from '../kernel/state/tree/index.js';
import { ChainStore } from '../kernel/store/chain-store.js';
import { PREFIX } from '../kernel/store/keys.js';
import { openChainStores } from '../kernel/store/chain-stores.js';
import { parsePositiveInt } from './load-plan.js';
import { LOAD_RANGE_SEED } from './genesis-load.js';

const { values } = parseArgs({ options: { accounts: { type: 'string', default: '1000000' }, chunk: { type: 'string', default: String(GENESIS_RANGE_CHUNK) }, every: { type: 'string', default: '8' }, 'heap-snapshot-at': { type: 'string' } } });
const accounts = parsePositiveInt(values.accounts!, '--accounts');
const chunk = parsePositiveInt(values.chunk!, '--chunk');
const every = parsePositiveInt(values.every!, '--every');
const snapshotAt = values['heap-snapshot-at'] === undefined ? 0 : parsePositiveInt(values['heap-snapshot-at'], '--heap-snapshot-at');

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const dir = mkdtempSync(join(tmpdir(), 'genesis-write-'));
const kv = (await openChainStores(dir)).kv;
try {
  const store = new ChainStore(kv);
  await store.load();
  const tree = new StateTree(kv, { prefix: utf8Bytes(PREFIX.treeNode) });
  let writes = 0;
  let peakRss = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  // Sampled where the writer hands a write to LevelDB: what it holds between its runs.
  const write = kv.write.bind(kv);
  kv.write = async (ops: readonly KvOp[], sync: boolean): Promise<void> => {
    await write(ops, sync);
    writes++;
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    if (writes % every === 0) console.log(`write ${writes} (${ops.length} ops) at ${((performance.now() - started) / 1000).toFixed(1)} s: rss ${mib(m.rss)} MiB, heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, external ${mib(m.external)}, array buffers ${mib(m.arrayBuffers)}`);
    if (writes === snapshotAt) console.log(`heap snapshot: ${writeHeapSnapshot()}`);
  };
  const { accounts: written } = await writeGenesisRanges({ store, tree, shards: shardView(0, 1) }, [{ seed: LOAD_RANGE_SEED, count: accounts, balance: '1000000' }], chunk);
  const used = process.cpuUsage(cpu);
  const cpuS = (used.user + used.system) / 1e6;
  console.log(`${written} accounts written in ${((performance.now() - started) / 1000).toFixed(1)} s wall, ${cpuS.toFixed(1)} s CPU (${((cpuS * 1e6) / written).toFixed(0)} µs an account), ${writes} store writes; peak RSS ${mib(peakRss)} MiB`);
} finally {
  await kv.close();
  rmSync(dir, { recursive: true, force: true });
}
