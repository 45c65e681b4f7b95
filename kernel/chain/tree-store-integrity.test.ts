import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { MemoryStore } from '../store/level-store.js';
import { PrefixRoutedStore } from '../store/prefix-routed-store.js';
import { utf8Bytes } from '../codec/utf8.js';
import { NodeKeys } from '../state/tree/index.js';

// As chain-stores.ts routes them: the versioned nodes apart, root records with the head.
const VERSIONED = NodeKeys.versionedPrefix(utf8Bytes('n/'));
const routed = (main: MemoryStore, tree: MemoryStore): PrefixRoutedStore => new PrefixRoutedStore(main, tree, VERSIONED, { main: utf8Bytes('m/sync-mark'), side: VERSIONED });

async function copyOf(store: MemoryStore): Promise<MemoryStore> {
  const copy = new MemoryStore();
  for await (const [key, value] of store.iterate({})) await copy.write([{ type: 'put', key, value }]);
  return copy;
}

test('a chain whose tree store is older than its chain store, or empty, refuses to open, naming the head root; with its own tree store it opens', async () => {
  const main = new MemoryStore();
  const tree = new MemoryStore();
  const accounts = [{ address: wallet(1).address, balance: 1_000n }];
  const f = await makeChain({ kv: routed(main, tree), accounts });
  await f.block();
  const treeAtBlock1 = await copyOf(tree);
  const rootAtBlock1 = f.chain.head.state_root;
  for (let nonce = 1; nonce <= 2; nonce++) {
    await f.chain.admit(signTransfer(wallet(1), { to: wallet(2).address, value: 5, nonce }), 0);
    await f.block();
  }
  const head = f.chain.head;
  assert.equal(head.height, 3);
  assert.notEqual(head.state_root, rootAtBlock1, 'the transfers changed the state');

  for (const [what, stale] of [
    ['a tree store restored from block 1', treeAtBlock1],
    ['an empty tree store', new MemoryStore()],
  ] as const) {
    await assert.rejects(makeChain({ kv: routed(main, stale), accounts }), (e: Error) => {
      assert.match(e.message, /store integrity: the state tree holds no node of the head's root/, what);
      assert.ok(e.message.includes(head.state_root), `${what}: names the root`);
      assert.match(e.message, /restore the data directory's tree\/ and chain\/ together from one backup/, what);
      return true;
    });
  }
  const reopened = await makeChain({ kv: routed(main, tree), accounts });
  assert.equal(reopened.chain.head.state_root, head.state_root);
});

test('genesis flushes what it staged before writing the head, and settles the tree after it', async () => {
  const calls: string[] = [];
  class Spied extends MemoryStore {
    override async write(ops: Parameters<MemoryStore['write']>[0]): Promise<void> {
      if (ops.some((op) => Buffer.from(op.key).toString('latin1') === 'm/chain')) calls.push('head');
      await super.write(ops);
    }
    async flush(): Promise<void> {
      calls.push('flush');
    }
    async settle(): Promise<void> {
      calls.push('settle');
    }
  }
  await makeChain({ kv: new Spied(), accounts: [{ address: wallet(1).address, balance: 1_000n }] });
  assert.deepEqual(calls, ['flush', 'head', 'settle']);
});

test('at height 0 too: a genesis-only chain reopened with an empty tree store refuses to open', async () => {
  const main = new MemoryStore();
  const tree = new MemoryStore();
  const accounts = [{ address: wallet(1).address, balance: 1_000n }];
  const f = await makeChain({ kv: routed(main, tree), accounts });
  assert.equal(f.chain.head.height, 0);
  await assert.rejects(makeChain({ kv: routed(main, new MemoryStore()), accounts }), /store integrity: the state tree holds no node of the head's root/);
  await makeChain({ kv: routed(main, tree), accounts });
});
