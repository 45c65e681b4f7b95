import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { MemoryStore } from '../store/level-store.js';
import { PREFIX } from '../store/keys.js';
import { MAX_READ_AHEAD_KEYS, readAheadKeys } from './read-ahead.js';

/** Well-formed key-derived addresses (read-ahead only names parties that are addresses). */
const A = { a: `chain:${'a'.repeat(15)}.human`, b: `chain:${'b'.repeat(15)}.human` };

const COIN = 1_000_000n;
const senders = [wallet(11), wallet(12), wallet(13)];
const recipients = [wallet(21), wallet(22), wallet(23), wallet(24)];

const statePrefix = Buffer.from(PREFIX.state);

/** A MemoryStore with `getMany` (as LevelDB has), counting its calls for state keys, or failing each of them (no state prefetch fills anything). */
class ManyStore extends MemoryStore {
  stateCalls = 0;
  constructor(private readonly fail: boolean) {
    super();
  }
  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    const ofState = keys.some((k) => Buffer.from(k).subarray(0, statePrefix.length).equals(statePrefix));
    if (ofState) this.stateCalls++;
    if (this.fail && ofState) throw new Error('no prefetch');
    return Promise.all(keys.map((k) => this.get(k)));
  }
}

test('read-ahead keys: each party\'s record and bound key once, and only well-formed addresses', () => {
  assert.deepEqual(readAheadKeys([{ from: A.a, to: A.b }, { from: A.b, to: A.a }, { from: 7, to: '' }, { from: 'chain:not an address', to: 'x'.repeat(5000) }, {}]), [`acct/${A.a}`, `acctkey/${A.a}`, `acct/${A.b}`, `acctkey/${A.b}`]);
});

test('read-ahead keys stop at MAX_READ_AHEAD_KEYS whatever a batch names', () => {
  const many = Array.from({ length: MAX_READ_AHEAD_KEYS }, (_, i) => ({ from: `chain:${i.toString(16).padStart(15, '0')}.human` }));
  assert.equal(readAheadKeys(many).length, MAX_READ_AHEAD_KEYS);
});

test('blocks executed with the accounts prefetched and with every prefetch failing have the same state roots and receipts', async () => {
  const run = async (fail: boolean): Promise<{ roots: string[]; statuses: string[]; stateCalls: number }> => {
    const kv = new ManyStore(fail);
    // A state cache of one entry: every block reads its accounts from the store, as at 10^6 accounts.
    const f = await makeChain({ kv, stateCacheEntries: 1, accounts: senders.map((w) => ({ address: w.address, balance: 10n * COIN })) });
    const roots: string[] = [];
    const statuses: string[] = [];
    for (let b = 0; b < 3; b++) {
      for (const [i, s] of senders.entries()) {
        // The last sender overspends in the last block: a failing transaction is part of what must match.
        const value = b === 2 && i === 2 ? Number(20n * COIN) : 1000 + b;
        await f.chain.admit(signTransfer(s, { to: recipients[(i + b) % recipients.length]!.address, value, nonce: b + 1 }), 0).catch(() => undefined);
      }
      const block = await f.block(1_000_000 + b * 1000);
      roots.push(block.state_root);
      for (const h of block.tx_hashes) statuses.push((await f.chain.queries.getTx(h))!.receipt.status);
    }
    await f.close();
    return { roots, statuses, stateCalls: kv.stateCalls };
  };
  const withPrefetch = await run(false);
  const without = await run(true);
  assert.ok(withPrefetch.stateCalls > 0, 'the prefetch ran');
  assert.deepEqual(withPrefetch.roots, without.roots);
  assert.deepEqual(withPrefetch.statuses, without.statuses);
});
