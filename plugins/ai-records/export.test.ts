import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isChainError, type RpcRequest } from '../../kernel/sdk.js';
import { checkExportToken, exportLines, exportRoutesDeclared, type ExportSource } from './export.js';
import type { LogEntry } from './log.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A synthetic chain of `n` blocks of ~2 KB each, two transactions a block, nothing held in memory. */
function syntheticSource(n: number): ExportSource {
  const pad = 'x'.repeat(2_000);
  return {
    head: () => n,
    block: async (h) => (h >= 1 && h <= n ? { height: h, hash: `0x${h.toString(16).padStart(64, '0')}`, proposer: `chain:validator-${h % 4}.node`, round: 0, timestamp: 1_700_000_000_000 + h * 200, pad } : undefined),
    transactions: async (h) => [{ hash: `0xa${h}`, block: h }, { hash: `0xb${h}`, block: h }],
    oracle: async (fromId, count) => {
      const out: LogEntry[] = [];
      for (let id = fromId; id < fromId + count && id <= n; id++) out.push({ id, model: 'sentinel', kind: 'anomaly', subject: `0x${id}`, decision: 'anomalous:drain', confidence_bp: 8717n, height: id, timestamp: id, tx_hash: null, source_event: 'tx_anomaly' });
      return out;
    },
    oracleCount: async () => n,
  };
}

test('10 000 blocks stream as JSON Lines in ascending height with flat memory', async () => {
  const src = syntheticSource(10_000);
  let lines = 0;
  let last = 0;
  let bytes = 0;
  let heapAt1k = 0;
  let peak = 0;
  gc();
  for await (const chunk of exportLines('blocks', src, { from: 1, to: 10_000 })) {
    bytes += chunk.length;
    for (const l of chunk.split('\n')) {
      if (l === '') continue;
      const h = (JSON.parse(l) as { height: number }).height;
      assert.equal(h, last + 1, 'ascending, none missing');
      last = h;
      lines++;
    }
    if (lines >= 1_000 && heapAt1k === 0) {
      gc();
      heapAt1k = process.memoryUsage().heapUsed;
    }
    if (lines % 2_000 < 64) {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
  }
  assert.equal(lines, 10_000);
  assert.ok(bytes > 20_000_000, `${bytes} bytes exported`);
  const growth = peak - heapAt1k;
  assert.ok(growth < 4_000_000, `heap grew ${growth} bytes while ${bytes} bytes went out: not flat`);
});

test('ranges: from/to are inclusive; txs, validators and oracle lines', async () => {
  const src = syntheticSource(50);
  const collect = async (kind: 'blocks' | 'txs' | 'validators' | 'oracle', from: number, to: number) => {
    const out: Array<Record<string, unknown>> = [];
    for await (const c of exportLines(kind, src, { from, to })) for (const l of c.split('\n')) if (l) out.push(JSON.parse(l) as Record<string, unknown>);
    return out;
  };
  assert.deepEqual((await collect('blocks', 10, 12)).map((b) => b.height), [10, 11, 12]);
  assert.deepEqual((await collect('txs', 10, 11)).map((t) => t.hash), ['0xa10', '0xb10', '0xa11', '0xb11']);
  assert.deepEqual(await collect('validators', 5, 5), [{ height: 5, proposer: 'chain:validator-1.node', round: 0, timestamp: 1_700_000_001_000 }]);
  const oracle = await collect('oracle', 48, 60);
  assert.deepEqual(oracle.map((e) => [e.id, e.confidence]), [[48, 0.8717], [49, 0.8717], [50, 0.8717]]);
});

test('an oracle export of a late range reads the log from that height on, not from its first entry', async () => {
  const src = syntheticSource(100_000);
  const asked: number[] = [];
  const read = src.oracle.bind(src);
  src.oracle = async (fromId, count) => {
    asked.push(count);
    return read(fromId, count);
  };
  const ids: number[] = [];
  for await (const c of exportLines('oracle', src, { from: 99_990, to: 99_995 })) for (const l of c.split('\n')) if (l) ids.push((JSON.parse(l) as { id: number }).id);
  assert.deepEqual(ids, [99_990, 99_991, 99_992, 99_993, 99_994, 99_995]);
  const entriesRead = asked.reduce((a, b) => a + b, 0);
  assert.ok(entriesRead < 600, `${entriesRead} log entries read for 6 lines`);
});

test('the token: required as a Bearer header when AI_EXPORT_TOKEN is set', () => {
  const req = (authorization?: string): RpcRequest => ({ method: 'GET', path: '/x', params: {}, query: new URLSearchParams(), headers: authorization ? { authorization } : {}, body: undefined, ip: '127.0.0.1' }) as unknown as RpcRequest;
  assert.doesNotThrow(() => checkExportToken(req(), undefined));
  assert.doesNotThrow(() => checkExportToken(req('Bearer s3cret'), 's3cret'));
  for (const bad of [undefined, 'Bearer wrong', 's3cret', 'Bearer s3cret2']) {
    assert.throws(() => checkExportToken(req(bad), 's3cret'), (e: unknown) => isChainError(e) && e.status === 401 && /AI_EXPORT_TOKEN/.test(e.message));
  }
});

test('the export routes refuse a missing token before the query, then a range that is not heights, naming the parameter', () => {
  const route = exportRoutesDeclared[0]!;
  const req = (query: string) => ({ method: 'GET' as const, path: route.path, params: {}, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' });
  assert.throws(() => route.parse(req('from=x')), (e: Error) => e.message === 'query parameter from: from must be a block height (a non-negative integer)');
  assert.throws(() => route.parse(req('to=-1')), (e: Error) => e.message === 'query parameter to: to must be a block height (a non-negative integer)');
  assert.deepEqual(route.parse(req('from=2&to=9')).query, { from: 2, to: 9 });
});
