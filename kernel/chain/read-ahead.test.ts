import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { MemoryStore } from '../store/level-store.js';
import { PREFIX } from '../store/keys.js';
import { MAX_READ_AHEAD_KEYS, readAheadKeys } from './read-ahead.js';
import { defineIndex, defineStore } from '../state/declared-store.js';
import { keyPart } from '../state/key-parts.js';
import { Type } from '@sinclair/typebox';
import { sponsorPlugin } from '../../plugins/sponsor/index.js';

/** Well-formed key-derived addresses (read-ahead only names parties that are addresses). */
const A = { a: `chain:${'a'.repeat(15)}.human`, b: `chain:${'b'.repeat(15)}.human` };

const COIN = 1_000_000n;
const senders = [wallet(11), wallet(12), wallet(13)];
const recipients = [wallet(21), wallet(22), wallet(23), wallet(24)];

const statePrefix = Buffer.from(PREFIX.state);

/** A MemoryStore with `getMany` (as LevelDB has), counting its calls for state keys, or failing each of them (no state prefetch fills anything). */
class ManyStore extends MemoryStore {
  stateCalls = 0;
  /** The state keys every `getMany` asked for, prefix stripped. */
  readonly manyKeys: string[] = [];
  /** The state keys read one at a time (`get`), prefix stripped. */
  readonly singleKeys: string[] = [];
  constructor(private readonly fail: boolean) {
    super();
  }
  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    const ofState = keys.some((k) => Buffer.from(k).subarray(0, statePrefix.length).equals(statePrefix));
    if (ofState) this.stateCalls++;
    for (const k of keys) this.manyKeys.push(Buffer.from(k).subarray(statePrefix.length).toString());
    if (this.fail && ofState) throw new Error('no prefetch');
    return Promise.all(keys.map((k) => super.get(k)));
  }
  override async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const k = Buffer.from(key);
    if (k.subarray(0, statePrefix.length).equals(statePrefix)) this.singleKeys.push(k.subarray(statePrefix.length).toString());
    return super.get(key);
  }
}

test('read-ahead keys: each party\'s record and bound key once, and only well-formed addresses', () => {
  assert.deepEqual(readAheadKeys([{ from: A.a, to: A.b }, { from: A.b, to: A.a }, { from: 7, to: '' }, { from: 'chain:not an address', to: 'x'.repeat(5000) }, {}]), [`acct/${A.a}`, `acctkey/${A.a}`, `acct/${A.b}`, `acctkey/${A.b}`]);
});

test('a plugin store declaring a read-ahead by party adds its record of each transaction\'s parties, only for addresses', () => {
  const bySender = defineStore('demo', { name: 'paid', description: 'd', key: ['paid', keyPart.address('who')], value: Type.Object({}), readAhead: ['sender'] });
  const pair = defineStore('demo', { name: 'pair', description: 'd', key: ['pair', keyPart.address('from'), 'to', keyPart.address('to')], value: Type.Object({}), readAhead: ['sender', 'recipient'] });
  assert.deepEqual(readAheadKeys([{ from: A.a, to: A.b }, { from: A.b }], [bySender, pair]), [`acct/${A.a}`, `acctkey/${A.a}`, `acct/${A.b}`, `acctkey/${A.b}`, `demo/paid/${A.a}`, `demo/pair/${A.a}/to/${A.b}`, `demo/paid/${A.b}`]);
  // A relayed body not yet checked names no key of its choosing through a plugin's store either.
  assert.deepEqual(readAheadKeys([{ from: 'chain:not an address', to: A.a }], [bySender, pair]), [`acct/${A.a}`, `acctkey/${A.a}`]);
});

test('readAhead is refused unless each typed key part is an address named by a party, and on an index', () => {
  const spec = { name: 's', description: 'd', value: Type.Object({}) };
  assert.throws(() => defineStore('demo', { ...spec, key: ['h', keyPart.hash('h')], readAhead: ['sender'] }), /each must be an address \(h\/<h> has <h>: hash\)/);
  assert.throws(() => defineStore('demo', { ...spec, key: ['p', keyPart.address('a'), keyPart.address('b')], readAhead: ['sender'] }), /names the party of each typed key part/);
  assert.throws(() => defineStore('demo', { ...spec, key: ['p', keyPart.address('a')], readAhead: ['payer' as 'sender'] }), /'sender' or 'recipient', not "payer"/);
  assert.throws(() => defineStore('demo', { ...spec, key: ['model'], readAhead: [] }), /names the party of each typed key part/);
  assert.throws(() => defineIndex('demo', { ...spec, key: ['p', keyPart.address('a')], readAhead: ['sender'] }), /readAhead is for state stores/);
});

test('a relay batch reads the sponsor\'s paidby record of each sender with the accounts, so its admissions read none alone', async () => {
  const kv = new ManyStore(false);
  const f = await makeChain({ kv, plugins: [sponsorPlugin], accounts: senders.map((w) => ({ address: w.address, balance: 10n * COIN })) });
  const bodies = senders.map((s, i) => signTransfer(s, { to: recipients[i]!.address, value: 1, nonce: 1 }));
  const before = { many: kv.manyKeys.length, single: kv.singleKeys.length };
  f.chain.prefetchAccounts(bodies.map((b) => ({ from: b.from, to: b.to })));
  await Promise.all(bodies.map((b) => f.chain.admitFromPeer('signed', b, 0)));
  const many = kv.manyKeys.slice(before.many);
  const single = kv.singleKeys.slice(before.single);
  for (const [i, s] of senders.entries()) {
    assert.ok(many.includes(`sponsor/paidby/${s.address}`), `paidby of sender ${i} read ahead`);
    assert.ok(!many.includes(`sponsor/paidby/${recipients[i]!.address}`), 'a recipient\'s is not: the sponsor reads the signer\'s');
  }
  // The key the sponsor's own read asks for is the one read ahead: none of its reads went to the store alone.
  assert.deepEqual(single.filter((k) => k.startsWith('sponsor/')), []);
  await f.close();
});

test('a local submission reads its sender\'s records in one call before authorization, and no record of the recipient it names', async () => {
  const kv = new ManyStore(false);
  const f = await makeChain({ kv, plugins: [sponsorPlugin], accounts: senders.map((w) => ({ address: w.address, balance: 10n * COIN })) });
  const before = { many: kv.manyKeys.length, single: kv.singleKeys.length };
  await f.chain.admit(signTransfer(senders[0]!, { to: recipients[0]!.address, value: 1, nonce: 1 }), 0);
  const many = kv.manyKeys.slice(before.many);
  // (The sender's account record is cached since genesis credited it.)
  assert.deepEqual(many, [`acctkey/${senders[0]!.address}`, `sponsor/paidby/${senders[0]!.address}`]);
  assert.deepEqual(kv.singleKeys.slice(before.single).filter((k) => k.startsWith('sponsor/') || k.includes(senders[0]!.address)), []);
  await f.close();
});

test('read-ahead keys stay within MAX_READ_AHEAD_KEYS with plugin records too', () => {
  const bySender = defineStore('demo', { name: 'paid', description: 'd', key: ['paid', keyPart.address('who')], value: Type.Object({}), readAhead: ['sender'] });
  const many = Array.from({ length: MAX_READ_AHEAD_KEYS }, (_, i) => ({ from: `chain:${i.toString(16).padStart(15, '0')}.human` }));
  assert.equal(readAheadKeys(many, [bySender]).length, MAX_READ_AHEAD_KEYS);
});

test('read-ahead keys stop at MAX_READ_AHEAD_KEYS whatever a batch names', () => {
  const many = Array.from({ length: MAX_READ_AHEAD_KEYS }, (_, i) => ({ from: `chain:${i.toString(16).padStart(15, '0')}.human` }));
  assert.equal(readAheadKeys(many).length, MAX_READ_AHEAD_KEYS);
});

test('blocks executed with the accounts prefetched and with every prefetch failing have the same state roots and receipts', async () => {
  const run = async (fail: boolean): Promise<{ roots: string[]; statuses: string[]; stateCalls: number }> => {
    const kv = new ManyStore(fail);
    // A state cache of one entry: every block reads its accounts from the store, as at 10^6 accounts.
    const f = await makeChain({ kv, stateCacheEntries: 1, plugins: [sponsorPlugin], accounts: senders.map((w) => ({ address: w.address, balance: 10n * COIN })) });
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
