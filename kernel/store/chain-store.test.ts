import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockEvent, BlockRecord, Receipt, Tx } from '../model/types.js';
import { txIdentity } from '../tx/hash.js';
import { ChainStore, type BlockBatch, type ChainStoreOptions } from './chain-store.js';
import { utf8Bytes } from '../codec/utf8.js';
import { txKey } from './keys.js';
import { LevelStore, MemoryStore } from './level-store.js';
import { FileTxTextLog } from './tx-text-log.js';
import { ProbeKv } from '../../test/helpers/probe-kv.js';

const text = (bytes: Uint8Array | undefined): string | undefined => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));
const hex64 = (n: number, salt = 0): string => '0x' + (n * 1000 + salt).toString(16).padStart(64, '0');

/** A signed transfer shaped like a real one: ~10 KB of canonical text, mostly signature and key. */
function transfer(n: number): Tx {
  const from = `chain:${n.toString(16).padStart(15, '0')}.human`;
  const to = 'chain:00000000000000f.human';
  const body = { from, to, value: n, nonce: 1, public_key: 'ab'.repeat(1952), signature: 'cd'.repeat(3309) };
  const { canonical, hash } = txIdentity(body);
  return { hash, origin: 'signed', target: 'transfer', from, to, value: BigInt(n), nonce: 1n, gasPrice: 1n, data: undefined, body, canonical, sigVersion: 'v3', receivedAt: 1_700_000_000_000 + n };
}

function receiptOf(tx: Tx, height: number, index: number): Receipt {
  return { tx_hash: tx.hash, status: 'confirmed', gas: 21, fee: 21n, fee_burned: 21n, error: null, block: height, index };
}

function blockAt(height: number, txs: readonly Tx[], salt = 0): BlockRecord {
  return {
    header: {
      chain_id: 'test-chain',
      height,
      round: 0,
      parent_hash: hex64(height - 1, salt),
      proposer: 'chain:v0.node',
      timestamp: 1_700_000_000_000 + height * 1000,
      tx_root: hex64(height, 1),
      tx_count: txs.length,
      prev_state_root: hex64(height - 1, 2),
      base_fee: 1n,
      shard: 0,
      evidence_hash: hex64(0, 3),
      validators_hash: hex64(0, 4),
      next_validators_hash: hex64(0, 4),
    },
    hash: hex64(height, salt),
    state_root: hex64(height, 2),
    gas_used: 21 * txs.length,
    fees_burned: 21n * BigInt(txs.length),
    tx_hashes: txs.map((t) => t.hash),
    evidence: [],
  };
}

/** Commits `blocks` blocks after the head, each with `perBlock` transfers; returns what was committed. */
async function commitBlocks(store: ChainStore, blocks: number, perBlock = 2): Promise<Array<{ block: BlockRecord; txs: Tx[]; receipts: Receipt[] }>> {
  const out = [];
  for (let b = 0; b < blocks; b++) {
    const height = store.head.height + 1;
    const txs = Array.from({ length: perBlock }, (_, i) => transfer(height * 100 + i));
    const receipts = txs.map((t, i) => receiptOf(t, height, i));
    const block = blockAt(height, txs);
    await store.commitBlock({ block, txs, receipts, events: [], stateChanges: [], extraOps: [] });
    out.push({ block, txs, receipts });
  }
  return out;
}

function openStore(options?: ChainStoreOptions): { kv: ProbeKv; store: ChainStore } {
  const kv = new ProbeKv();
  return { kv, store: new ChainStore(kv, options) };
}

test('ChainStore: a new block and its transactions are read back without LevelDB, equal to what LevelDB holds', async () => {
  const { kv, store } = openStore();
  const committed = await commitBlocks(store, 3);
  kv.gets = 0;
  for (const { block, txs, receipts } of committed) {
    assert.deepEqual(await store.getBlock(block.header.height), block);
    for (const [i, tx] of txs.entries()) assert.deepEqual(await store.getTx(tx.hash), { tx, receipt: receipts[i] });
  }
  assert.equal(kv.gets, 0, 'every read was served from the bytes the commit wrote');

  const fromDisk = new ChainStore(kv);
  for (const { block, txs } of committed) {
    assert.deepEqual(await store.getBlock(block.header.height), await fromDisk.getBlock(block.header.height));
    for (const tx of txs) assert.deepEqual(await store.getTx(tx.hash), await fromDisk.getTx(tx.hash));
  }
  assert.equal(await store.getBlock(4), undefined, 'a height above the head is absent');
  assert.equal(await store.getTx(hex64(9)), undefined);
});

test('ChainStore: every read decodes its own copy, so a caller that changes one changes nothing for the next', async () => {
  const { store } = openStore();
  const { block, txs, receipts } = (await commitBlocks(store, 1))[0]!;
  const read = (await store.getBlock(1))!;
  (read.header as { timestamp: number }).timestamp = 0;
  (read.tx_hashes as string[]).push(hex64(7));
  (block.header as { round: number }).round = 9; // nor does the committer's object
  assert.equal((await store.getBlock(1))?.header.timestamp, 1_700_000_001_000);
  assert.equal((await store.getBlock(1))?.header.round, 0);
  assert.equal((await store.getBlock(1))?.tx_hashes.length, 2);

  const stored = (await store.getTx(txs[0]!.hash))!;
  (stored.receipt as { fee: bigint }).fee = 0n;
  (stored.tx.body as Record<string, unknown>).value = 0;
  assert.deepEqual(await store.getTx(txs[0]!.hash), { tx: txs[0], receipt: receipts[0] });
});

test('ChainStore: past the memory bounds, older blocks and transactions are read from LevelDB', async () => {
  const probe = openStore();
  await commitBlocks(probe.store, 1, 1);
  const recordBytes = (await probe.kv.inner.get(txKey(transfer(100).hash)))!.length;
  // Room for the records of two transfers (theirs differ by a few bytes) and three blocks.
  const { kv, store } = openStore({ recentBlocks: 3, recentTxBytes: 2 * recordBytes + 16 });
  const committed = await commitBlocks(store, 6, 1);
  kv.gets = 0;
  for (const { block } of committed.slice(3)) assert.deepEqual(await store.getBlock(block.header.height), block);
  for (const { txs } of committed.slice(4)) assert.equal((await store.getTx(txs[0]!.hash))?.tx.hash, txs[0]!.hash);
  assert.equal(kv.gets, 0, 'the newest three blocks and two transactions are in memory');

  const oldest = committed[0]!;
  assert.deepEqual(await store.getBlock(1), oldest.block);
  assert.deepEqual(await store.getTx(oldest.txs[0]!.hash), { tx: oldest.txs[0], receipt: oldest.receipts[0] });
  assert.equal(kv.gets, 2, 'the evicted block and transaction came from LevelDB');
  assert.deepEqual(await store.getBlock(1), oldest.block);
  assert.equal(kv.gets, 3, 'a read does not fill the cache: only commits do');
});

test('ChainStore: a commit whose write fails leaves nothing readable', async () => {
  const { kv, store } = openStore();
  const [first] = await commitBlocks(store, 1);
  const txs = [transfer(201), transfer(202)];
  const block = blockAt(2, txs);
  const receipts = txs.map((t, i) => receiptOf(t, 2, i));
  kv.failWrites = true;
  await assert.rejects(store.commitBlock({ block, txs, receipts, events: [], stateChanges: [], extraOps: [] }), /no space left/);
  kv.failWrites = false;
  assert.equal(store.head.height, 1);
  assert.equal(await store.getBlock(2), undefined);
  for (const tx of txs) assert.equal(await store.getTx(tx.hash), undefined);
  assert.deepEqual(await store.getBlock(1), first!.block, 'what was committed before is untouched');

  await store.commitBlock({ block, txs, receipts, events: [], stateChanges: [], extraOps: [] });
  assert.deepEqual(await store.getBlock(2), block, 'the same block commits on retry');
  assert.deepEqual(await store.getTx(txs[1]!.hash), { tx: txs[1], receipt: receipts[1] });
});

test('ChainStore: a block, its events and its plugin index writes are one batch: a crash before it leaves none, a reopened store reads all', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-store-events-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kv = new ProbeKv(await LevelStore.open(dir));
  const store = new ChainStore(kv);
  await commitBlocks(store, 1);
  await store.commitBlock({ block: blockAt(2, []), txs: [], receipts: [], events: [], stateChanges: [], extraOps: [], indexWrites: [['recorder/gone', utf8Bytes('soon deleted')]] });
  const txs = [transfer(301)];
  const events: BlockEvent[] = [
    { type: 'noted', data: { amount: 10n ** 20n, from: txs[0]!.from }, height: 3, index: 0, tx_hash: txs[0]!.hash, phase: 'tx' },
    { type: 'block_closed', data: {}, height: 3, index: 1, tx_hash: null, phase: 'end_block' },
  ];
  const commit: BlockBatch = {
    block: blockAt(3, txs),
    txs,
    receipts: [receiptOf(txs[0]!, 3, 0)],
    events,
    stateChanges: [['recorder/note', utf8Bytes('state')]],
    indexWrites: [['recorder/note/a', utf8Bytes('indexed')], ['recorder/gone', null]],
    extraOps: [],
  };
  // The process dies before the batch reaches LevelDB (which applies a batch whole or not at all).
  kv.failWrites = true;
  await assert.rejects(store.commitBlock(commit), /no space left/);
  await kv.close();
  const restarted = new ChainStore(await LevelStore.open(dir));
  assert.equal((await restarted.load()).height, 2);
  assert.equal(await restarted.getBlock(3), undefined);
  assert.deepEqual(await restarted.getBlockEvents(3), []);
  assert.equal(await restarted.pluginIndex('recorder').get('note/a'), undefined);
  assert.equal(text(await restarted.pluginIndex('recorder').get('gone')), 'soon deleted');
  assert.equal(await restarted.state.get('recorder/note'), undefined);

  const probe = new ProbeKv(restarted.kv);
  const again = new ChainStore(probe);
  await again.load();
  await again.commitBlock(commit);
  assert.equal(probe.writes, 1, 'block, events, index writes and state: one write');
  assert.deepEqual(await again.getBlockEvents(3), events, 'read back from memory');
  await again.close();
  const reopened = new ChainStore(await LevelStore.open(dir));
  t.after(() => reopened.close());
  await reopened.load();
  assert.deepEqual(await reopened.getBlock(3), commit.block);
  assert.deepEqual(await reopened.getBlockEvents(3), events, 'read back from LevelDB, the bigint exact');
  assert.deepEqual(await reopened.getTxEvents(3, txs[0]!.hash), [events[0]]);
  assert.deepEqual((await reopened.pluginIndex('recorder').scan()).map(([k, v]) => [k, text(v)]), [['note/a', 'indexed']], 'the put applied and the delete too');
  assert.equal(text(await reopened.state.get('recorder/note')), 'state');
});

test('ChainStore: a store reopened over the same LevelDB reads every block and transaction', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = new ChainStore(await LevelStore.open(dir));
  const committed = await commitBlocks(first, 3);
  await first.close();

  const kv = new ProbeKv(await LevelStore.open(dir));
  t.after(() => kv.close());
  const reopened = new ChainStore(kv);
  assert.equal((await reopened.load()).height, 3);
  assert.equal(reopened.firstFullHeight, 1, 'a store grown from genesis serves every block');
  for (const { block, txs, receipts } of committed) {
    assert.deepEqual(await reopened.getBlock(block.header.height), block);
    for (const [i, tx] of txs.entries()) assert.deepEqual(await reopened.getTx(tx.hash), { tx, receipt: receipts[i] });
  }
  assert.equal(kv.gets, 4 + 3 + 6, 'the head, first full height, the transactions before it and validator-activity mark, then every block and transaction from disk');
});

test('ChainStore with a text log: texts live in the log, LevelDB records hold pointers, and a reopened store reads both', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-store-log-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const open = async (): Promise<{ kv: ProbeKv; store: ChainStore }> => {
    const kv = new ProbeKv(await LevelStore.open(join(dir, 'chain')));
    const store = new ChainStore(kv, { textLog: await FileTxTextLog.open(join(dir, 'txtext')) });
    await store.load();
    return { kv, store };
  };
  // A store written before the log existed: its texts are inline and must stay readable.
  const legacy = new ChainStore(await LevelStore.open(join(dir, 'chain')));
  await legacy.load();
  const inline = await commitBlocks(legacy, 1);
  await legacy.close();

  const first = await open();
  const logged = await commitBlocks(first.store, 2);
  const record = (await first.kv.inner.get(txKey(logged[0]!.txs[0]!.hash)))!;
  assert.ok(record.length < 1000, `the LevelDB record is ${record.length} bytes, the text is not in it`);
  await first.store.close();

  const again = await open();
  t.after(() => again.store.close());
  assert.equal(again.store.head.height, 3);
  for (const { txs, receipts } of [...inline, ...logged]) {
    for (const [i, tx] of txs.entries()) {
      assert.deepEqual(await again.store.getTx(tx.hash), { tx, receipt: receipts[i] });
      assert.equal(await again.store.hasTx(tx.hash), true);
    }
  }
  assert.equal(await again.store.hasTx(hex64(9)), false);
});

test('ChainStore with a text log: a batch that fails after its texts were appended gives their space back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-store-log-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kv = new ProbeKv(await LevelStore.open(join(dir, 'chain')));
  const store = new ChainStore(kv, { textLog: await FileTxTextLog.open(join(dir, 'txtext')) });
  t.after(() => store.close());
  await store.load();
  await commitBlocks(store, 1);
  const sizeAfterCommit = statSync(join(dir, 'txtext', '00000000.txt')).size;
  kv.failWrites = true;
  await assert.rejects(commitBlocks(store, 1), /no space left/);
  assert.equal(statSync(join(dir, 'txtext', '00000000.txt')).size, sizeAfterCommit);
  kv.failWrites = false;
  const { txs, receipts } = (await commitBlocks(store, 1))[0]!;
  const readLog = await FileTxTextLog.open(join(dir, 'txtext'));
  t.after(() => readLog.close());
  assert.deepEqual(await new ChainStore(kv, { textLog: readLog }).getTx(txs[1]!.hash), { tx: txs[1], receipt: receipts[1] });
});

test('ChainStore with a text log: texts a crash left past the last batch are cut off when the store opens', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-store-log-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const textLog = await FileTxTextLog.open(join(dir, 'txtext'), { segmentBytes: 70_000 });
  const store = new ChainStore(await LevelStore.open(join(dir, 'chain')), { textLog });
  await store.load();
  await commitBlocks(store, 1);
  const committedEnd = textLog.end;
  // The process dies after the log's fsync and before LevelDB's batch: two blocks' worth of
  // texts, the second rolling into a new segment, that no record points at.
  await textLog.append([new Uint8Array(30_000).fill(0x7b)]);
  await textLog.append([new Uint8Array(30_000).fill(0x7b)]);
  assert.equal(textLog.end.segment, 1);
  await store.close();

  const reopenedLog = await FileTxTextLog.open(join(dir, 'txtext'), { segmentBytes: 70_000 });
  const reopened = new ChainStore(new ProbeKv(await LevelStore.open(join(dir, 'chain'))), { textLog: reopenedLog });
  t.after(() => reopened.close());
  assert.equal((await reopened.load()).height, 1);
  assert.deepEqual(reopenedLog.end, committedEnd);
  assert.deepEqual(readdirSync(join(dir, 'txtext')), ['00000000.txt']);
  assert.equal(statSync(join(dir, 'txtext', '00000000.txt')).size, committedEnd.offset);
  const { txs, receipts } = (await commitBlocks(reopened, 1))[0]!;
  const uncached = new ChainStore(reopened.kv, { textLog: reopenedLog });
  assert.deepEqual(await uncached.getTx(txs[1]!.hash), { tx: txs[1], receipt: receipts[1] });
});

test('ChainStore without a text log refuses records that point into one', async () => {
  const { kv, store } = openStore();
  const dir = mkdtempSync(join(tmpdir(), 'chain-store-log-'));
  try {
    const withLog = new ChainStore(kv, { textLog: await FileTxTextLog.open(dir) });
    await withLog.load();
    const { txs } = (await commitBlocks(withLog, 1))[0]!;
    await assert.rejects(store.getTx(txs[0]!.hash), /points into a text log this store was opened without/);
    await withLog.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ChainStore: a transaction\'s fields and receipt are read without its text, from memory or from LevelDB', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-store-fields-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fieldsOf = ({ body: _body, canonical: _canonical, ...fields }: Tx): Omit<Tx, 'body' | 'canonical'> => fields;
  // Recent: answered from the in-memory records.
  const { store: recent } = openStore();
  const [fresh] = await commitBlocks(recent, 1);
  assert.deepEqual(await recent.getTxFields(fresh!.txs[1]!.hash), { tx: fieldsOf(fresh!.txs[1]!), receipt: fresh!.receipts[1] });
  assert.equal(await recent.getTxFields(hex64(9)), undefined);

  // Older than the memory bound: one LevelDB read each, and the text log is not touched.
  const log = await FileTxTextLog.open(join(dir, 'txtext'));
  let textReads = 0;
  const countingLog = {
    append: (texts: readonly Uint8Array[]) => log.append(texts),
    read: (p: Parameters<typeof log.read>[0]) => (textReads++, log.read(p)),
    get end() {
      return log.end;
    },
    truncateTo: (p: Parameters<typeof log.truncateTo>[0]) => log.truncateTo(p),
    close: () => log.close(),
  };
  const kv = new ProbeKv(await LevelStore.open(join(dir, 'chain')));
  const store = new ChainStore(kv, { textLog: countingLog, recentBlocks: 1, recentTxBytes: 1 });
  await store.load();
  t.after(() => store.close());
  const [old] = await commitBlocks(store, 3);
  const gets = kv.gets;
  for (const [i, tx] of old!.txs.entries()) {
    assert.deepEqual(await store.getTxFields(tx.hash), { tx: fieldsOf(tx), receipt: old!.receipts[i] });
  }
  assert.equal(kv.gets - gets, old!.txs.length, 'one LevelDB read each');
  assert.equal(textReads, 0, 'no text read');
  assert.deepEqual((await store.getTx(old!.txs[0]!.hash))?.tx, old!.txs[0], 'the full read still reads the text');
  assert.equal(textReads, 1);
});

test('ChainStore: a type-filtered transaction list is filtered before it is paged, and counts the matches', async () => {
  const { kv, store } = openStore();
  // Newest first the chain holds: credit 3, transfers 301 and 300, credit 2, transfers 201 and 200, credit 1.
  const credit = (n: number): Tx => ({ ...transfer(n), origin: 'system', target: 'faucet', nonce: 0n });
  for (const height of [1, 2, 3]) {
    const txs = [credit(height), ...Array.from({ length: height === 1 ? 0 : 2 }, (_, i) => transfer(height * 100 + i))];
    await store.commitBlock({ block: blockAt(height, txs), txs, receipts: txs.map((t, i) => receiptOf(t, height, i)), events: [], stateChanges: [], extraOps: [] });
  }
  const isCredit = (target: string): boolean => target === 'faucet';
  assert.deepEqual(await store.matchingTxHashes(undefined, isCredit, 0, 2), { hashes: [credit(3).hash, credit(2).hash], total: 3 });
  assert.deepEqual(await store.matchingTxHashes(undefined, isCredit, 2, 2), { hashes: [credit(1).hash], total: 3 });
  assert.deepEqual(await store.matchingTxHashes(undefined, isCredit, 3, 2), { hashes: [], total: 3 });
  const sender = transfer(300).from;
  assert.deepEqual(await store.matchingTxHashes(sender, (t) => t === 'transfer', 0, 5), { hashes: [transfer(300).hash], total: 1 });
  assert.deepEqual(await store.matchingTxHashes(sender, isCredit, 0, 5), { hashes: [], total: 0 });
  // The walk is bounded: stopped after four entries (block 3's three and one of block 2's), the
  // total is what it saw, marked inexact.
  assert.deepEqual(await store.matchingTxHashes(undefined, isCredit, 0, 5, 4), { hashes: [credit(3).hash], total: 1, exact: false });
  // The unfiltered lists read the same index.
  assert.deepEqual(await store.latestTxHashes(0, 3), [transfer(301).hash, transfer(300).hash, credit(3).hash]);

  // An index entry written before entries carried the type (the hash alone) is typed from its record.
  const { txGlobalKey } = await import('./keys.js');
  await kv.write([{ type: 'put', key: txGlobalKey(3, 0), value: new TextEncoder().encode(credit(3).hash) }], true);
  assert.deepEqual(await store.matchingTxHashes(undefined, isCredit, 0, 1), { hashes: [credit(3).hash], total: 3 });
  assert.deepEqual(await store.latestTxHashes(2, 1), [credit(3).hash]);
});

test('a staged write of 200,000 tree nodes (a genesis chunk into a 10^6-key tree) is one write, not a call-stack overflow; discardStaged clears it', async () => {
  const { MemoryStore } = await import('./level-store.js');
  const kv = new MemoryStore();
  const store = new ChainStore(kv);
  await store.load();
  const nodes = Array.from({ length: 200_000 }, (_, i) => ({ type: 'put' as const, key: utf8Bytes(`n/${i}`), value: new Uint8Array([i & 255]) }));
  await store.writeStaged([['acct/a', utf8Bytes('1')]], nodes);
  assert.deepEqual(await store.state.scan(''), [['acct/a', utf8Bytes('1')]]);
  assert.notEqual(await kv.get(utf8Bytes('n/199999')), undefined);
  await store.discardStaged();
  assert.deepEqual(await store.state.scan(''), []);
  assert.equal(await kv.get(utf8Bytes('n/199999')), undefined);
});

test('flushStaged flushes every store, only while nothing is committed; settleTree settles the tree\'s versioned nodes', async () => {
  const calls: string[] = [];
  class Spied extends MemoryStore {
    async settle(range: { gte: Uint8Array; lt: Uint8Array }): Promise<void> {
      calls.push(`settle ${Buffer.from(range.gte).toString('latin1')}..${Buffer.from(range.lt).toString('latin1')}`);
    }
    async flush(): Promise<void> {
      calls.push('flush');
    }
  }
  const store = new ChainStore(new Spied());
  await store.load();
  await store.flushStaged();
  assert.deepEqual(calls, ['flush']);
  await store.commitGenesis([['acct/x', new Uint8Array([1])]], [], '0x' + '11'.repeat(32));
  await assert.rejects(store.flushStaged(), /the store is initialised/);
  await store.settleTree();
  assert.deepEqual(calls, ['flush', 'settle n/\xff..n0']);
});
