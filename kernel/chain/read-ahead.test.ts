import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { MemoryStore } from '../store/level-store.js';
import { PREFIX } from '../store/keys.js';
import { ReadAhead } from './read-ahead.js';

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

test('read-ahead keys: each party\'s record and bound key once, whatever the body holds', () => {
  assert.deepEqual(new ReadAhead().keysOf([{ from: 'chain:a', to: 'chain:b' }, { from: 'chain:b', to: 'chain:a' }, { from: 7, to: '' }, {}]), ['acct/chain:a', 'acctkey/chain:a', 'acct/chain:b', 'acctkey/chain:b']);
});

test('read-ahead learns a key shape that keeps missing for recent parties, and only such a shape', () => {
  const ahead = new ReadAhead();
  ahead.keysOf([{ from: 'chain:s1', to: 'chain:r1' }, { from: 'chain:s2', to: 'chain:r2' }, { from: 'chain:s3', to: 'chain:r3' }]);
  ahead.missed('sponsor/paidby/chain:s1');
  ahead.missed('sponsor/paidby/chain:s2');
  ahead.missed('other/chain:unknown');
  ahead.missed('params/base_fee');
  assert.deepEqual(ahead.shapes, [], 'seen twice: not yet');
  ahead.missed('sponsor/paidby/chain:s3');
  ahead.missed('sentinel/trust/chain:s1/chain:r1');
  ahead.missed('sentinel/trust/chain:s2/chain:r2');
  ahead.missed('sentinel/trust/chain:s3/chain:r3');
  assert.equal(ahead.shapes.length, 2);
  assert.deepEqual(ahead.keysOf([{ from: 'chain:x', to: 'chain:y' }, { from: 'chain:z' }]), [
    'acct/chain:x',
    'acctkey/chain:x',
    'acct/chain:y',
    'acctkey/chain:y',
    'sponsor/paidby/chain:x',
    'sentinel/trust/chain:x/chain:y',
    'acct/chain:z',
    'acctkey/chain:z',
    'sponsor/paidby/chain:z',
  ]);
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
