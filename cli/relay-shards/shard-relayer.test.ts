import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { NodeRefusal } from '../client/node-client.js';
import { ShardRelayer, type CommitAnswer, type LockView, type WireValidator } from './shard-relayer.js';
import type { ShardApi } from './shard-endpoint.js';

/** A set of one validator named `tag`, hashed as `hash-<tag>` (the relayer compares hashes, never computes them). */
const set = (tag: string): WireValidator[] => [{ address: `chain:validator-${tag}.node`, public_key: tag, power: 10 }];

/**
 * One shard as the relayer sees it over HTTP: its own `/shards` entry, its clients, its queue, the
 * receipts it wrote and its commits; what was posted to it; and refusals or an outage on demand.
 */
class FakeShard implements ShardApi {
  height = 20;
  /** Height → the tag of the set deciding it; `next` of h is the tag at h + 1. */
  setAt: (h: number) => string = () => `s${this.shard}`;
  clients: Array<{ shard: number; validators_hash: string; trusted_height: number }> = [];
  locks: LockView[] = [];
  receipts = new Map<string, { outcome: string }>();
  posts: Array<{ path: string; body: Record<string, unknown> }> = [];
  down = false;
  /** Status to answer the next posts to a path with (409, 400). */
  refuse = new Map<string, number>();

  constructor(readonly shard: number) {}

  async get<T>(path: string): Promise<T> {
    if (this.down) throw new Error(`cannot reach shard ${this.shard}`);
    let m: RegExpExecArray | null;
    if (path === '/api/v1/shards') return { n_shards: 3, shard_id: this.shard, shards: [{ shard: this.shard, height: this.height, validators_hash: `hash-${this.setAt(this.height)}` }] } as T;
    if (path.startsWith('/api/v1/cross-shard/clients')) return { clients: this.clients, total: this.clients.length } as T;
    if (path.startsWith('/api/v1/cross-shard/queue?status=locked')) return { transfers: this.locks, total: this.locks.length } as T;
    if ((m = /^\/api\/v1\/cross-shard\/transfers\/([^/]+)\/proof$/.exec(path))) {
      const lock = this.locks.find((l) => l.id === m![1]);
      if (!lock) throw new NodeRefusal(404, 'no such lock', undefined, {});
      return { lock, proof: { height: this.height - 1, from: this.shard } } as T;
    }
    if ((m = /^\/api\/v1\/cross-shard\/receipts\/(\d+)\/([^/]+)(\/proof)?$/.exec(path))) {
      const r = this.receipts.get(`${m[1]}/${m[2]}`);
      if (!r) throw new NodeRefusal(404, 'no such receipt', undefined, {});
      return (m[3] ? { receipt: { ...r, id: m[2] }, proof: { height: this.height - 1, from: this.shard } } : r) as T;
    }
    if ((m = /^\/api\/v1\/blocks\/(\d+)\/commit$/.exec(path))) {
      const h = Number(m[1]);
      if (h > this.height) throw new NodeRefusal(404, 'above the tip', undefined, {});
      const commit: CommitAnswer = { height: h, header: { height: h, validators_hash: `hash-${this.setAt(h)}`, next_validators_hash: `hash-${this.setAt(h + 1)}` }, certificate: { height: h }, validators: set(this.setAt(h)) };
      return commit as T;
    }
    throw new Error(`fake shard: no route ${path}`);
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    if (this.down) throw new Error(`cannot reach shard ${this.shard}`);
    this.posts.push({ path, body: body as Record<string, unknown> });
    const status = this.refuse.get(path);
    if (status !== undefined) throw new NodeRefusal(status, status === 409 ? 'receipt already written: committed' : 'certificate: not enough power', undefined, {});
    return { tx_hash: `0x${this.posts.length}` } as T;
  }
}

function lock(id: string, source: number, dest: number, deadline = 30): LockView {
  return { id, source_shard: source, dest_shard: dest, status: 'locked', deadline_height: deadline };
}

function harness(n = 2): { shards: FakeShard[]; relayer: ShardRelayer; logs: Array<Record<string, unknown>> } {
  const shards = Array.from({ length: n }, (_, s) => new FakeShard(s));
  for (const sh of shards) sh.clients = shards.filter((o) => o !== sh).map((o) => ({ shard: o.shard, validators_hash: `hash-s${o.shard}`, trusted_height: 0 }));
  const logs: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  return { shards, relayer: new ShardRelayer({ shards, log, intervalMs: 1000 }), logs };
}

const posted = (s: FakeShard, suffix: string) => s.posts.filter((p) => p.path.endsWith(suffix));

test('a lock without a receipt: its bundle, as the source serves it, goes to the destination commit', async () => {
  const { shards, relayer } = harness();
  shards[0]!.locks = [lock('0xaa', 0, 1)];
  await relayer.poll();
  const commits = posted(shards[1]!, '/cross-shard/commit');
  assert.equal(commits.length, 1);
  assert.deepEqual(commits[0]!.body, { lock: shards[0]!.locks[0], proof: { height: 19, from: 0 } });
  assert.equal(shards[0]!.posts.length, 0, 'nothing goes to the source');
});

test('a lock past its deadline is still sent to commit: the destination writes the abort', async () => {
  const { shards, relayer } = harness();
  shards[1]!.locks = [lock('0xbb', 1, 0, 5)];
  await relayer.poll();
  assert.equal(posted(shards[0]!, '/cross-shard/commit').length, 1);
});

for (const outcome of ['committed', 'aborted']) {
  test(`a lock with a ${outcome} receipt: the receipt bundle goes to the source ack`, async () => {
    const { shards, relayer } = harness();
    shards[0]!.locks = [lock('0xcc', 0, 1)];
    shards[1]!.receipts.set('0/0xcc', { outcome });
    await relayer.poll();
    assert.equal(posted(shards[1]!, '/cross-shard/commit').length, 0, 'no second commit once a receipt exists');
    const acks = posted(shards[0]!, '/cross-shard/ack');
    assert.equal(acks.length, 1);
    assert.deepEqual(acks[0]!.body, { receipt: { outcome, id: '0xcc' }, proof: { height: 19, from: 1 } });
  });
}

test('a stale client is updated with the commit of the set change and the next set, before any lock that needs it', async () => {
  const { shards, relayer } = harness();
  // Shard 1's set changed: heights 1..12 decided by s1, 13.. by n1. Shard 0 still trusts s1.
  shards[1]!.setAt = (h) => (h <= 12 ? 's1' : 'n1');
  shards[1]!.locks = [lock('0xdd', 1, 0)];
  shards[0]!.locks = [lock('0xee', 0, 1)];
  await relayer.poll();
  const updates = posted(shards[0]!, '/cross-shard/headers');
  assert.equal(updates.length, 1);
  const body = updates[0]!.body as unknown as CommitAnswer & { next_validators: WireValidator[] };
  assert.equal(body.height, 12, 'the last height the trusted set decided, which names the next set');
  assert.equal(body.header.validators_hash, 'hash-s1');
  assert.equal(body.header.next_validators_hash, 'hash-n1');
  assert.deepEqual(body.next_validators, set('n1'));
  assert.equal(posted(shards[0]!, '/cross-shard/commit').length, 0, 'a commit certified by a set shard 0 does not trust waits for the update');
  assert.equal(posted(shards[1]!, '/cross-shard/commit').length, 1, 'the other direction is unaffected');
  assert.equal(posted(shards[1]!, '/cross-shard/headers').length, 0, 'shard 1 trusts shard 0 current set');

  // Once adopted (trusted_height 13, the new hash) the commit goes.
  shards[0]!.clients = [{ shard: 1, validators_hash: 'hash-n1', trusted_height: 13 }];
  await relayer.poll();
  assert.equal(posted(shards[0]!, '/cross-shard/headers').length, 1);
  assert.equal(posted(shards[0]!, '/cross-shard/commit').length, 1);
});

test('sets changed at two consecutive heights: the second update is the header at trusted_height, the only one the adopted set certified that names the next', async () => {
  const { shards, relayer } = harness();
  // s1 decides 1..12, n1 decides only 13, n2 from 14: header 12 names n1, header 13 names n2.
  shards[1]!.setAt = (h) => (h <= 12 ? 's1' : h === 13 ? 'n1' : 'n2');
  await relayer.poll();
  assert.deepEqual(posted(shards[0]!, '/cross-shard/headers').map((p) => p.body.height), [12]);
  shards[0]!.clients = [{ shard: 1, validators_hash: 'hash-n1', trusted_height: 13 }];
  await relayer.poll();
  const second = posted(shards[0]!, '/cross-shard/headers')[1]!.body as unknown as CommitAnswer & { next_validators: WireValidator[] };
  assert.equal(second.height, 13);
  assert.deepEqual([second.header.validators_hash, second.header.next_validators_hash], ['hash-n1', 'hash-n2']);
  assert.deepEqual(second.next_validators, set('n2'));
});

test('a shard entry without validators_hash: the set is read from the head commit header', async () => {
  const { shards, relayer } = harness();
  const real = shards[1]!.get.bind(shards[1]!);
  shards[1]!.get = async <T>(path: string): Promise<T> => {
    const answer = await real<{ shards?: Array<Record<string, unknown>> }>(path);
    if (path === '/api/v1/shards') for (const e of answer.shards ?? []) delete e['validators_hash'];
    return answer as T;
  };
  shards[1]!.setAt = (h) => (h <= 12 ? 's1' : 'n1');
  await relayer.poll();
  assert.equal((posted(shards[0]!, '/cross-shard/headers')[0]!.body as { height: number }).height, 12);
  shards[1]!.setAt = () => 's1';
  await relayer.poll();
  assert.equal(posted(shards[0]!, '/cross-shard/headers').length, 1, 'a current client: nothing sent');
});

test('a set change at the tip waits for the next set first block', async () => {
  const { shards, relayer } = harness();
  shards[1]!.setAt = (h) => (h <= 20 ? 's1' : 'n1');
  shards[1]!.height = 20;
  // At the tip the entry still shows s1, so shard 0 is not stale: nothing to do.
  await relayer.poll();
  assert.equal(posted(shards[0]!, '/cross-shard/headers').length, 0);
  shards[1]!.height = 21;
  await relayer.poll();
  assert.equal((posted(shards[0]!, '/cross-shard/headers')[0]!.body as { height: number }).height, 20);
});

test('a 409 is expected: no warning, and no delay before the next poll tries again', async () => {
  const { shards, relayer, logs } = harness();
  shards[0]!.locks = [lock('0xff', 0, 1)];
  shards[1]!.refuse.set('/api/v1/cross-shard/commit', 409);
  await relayer.poll();
  await relayer.poll();
  assert.equal(posted(shards[1]!, '/cross-shard/commit').length, 2);
  assert.equal(logs.filter((l) => (l.level as number) >= 40).length, 0, 'no warning for a 409');
});

test('another refusal waits a growing delay instead of being resent every poll', async () => {
  const { shards, relayer, logs } = harness();
  shards[0]!.locks = [lock('0x11', 0, 1)];
  shards[1]!.refuse.set('/api/v1/cross-shard/commit', 400);
  await relayer.poll();
  await relayer.poll();
  assert.equal(posted(shards[1]!, '/cross-shard/commit').length, 1);
  const warning = logs.find((l) => l.msg === 'commit refused');
  assert.equal(warning?.status, 400);
  assert.equal(warning?.retry_in_ms, 1000);
});

test('an unreachable shard is skipped and the others are relayed', async () => {
  const { shards, relayer, logs } = harness(3);
  shards[2]!.down = true;
  shards[0]!.locks = [lock('0x21', 0, 1), lock('0x22', 0, 2)];
  shards[1]!.locks = [lock('0x23', 1, 0)];
  await relayer.poll();
  assert.equal(posted(shards[1]!, '/cross-shard/commit').length, 1);
  assert.equal(posted(shards[0]!, '/cross-shard/commit').length, 1);
  assert.ok(logs.some((l) => l.shard === 2 && l.msg === 'shard unreachable: skipped this poll'));
  // It comes back: the lock to it goes on the next poll.
  shards[2]!.down = false;
  await relayer.poll();
  assert.equal(posted(shards[2]!, '/cross-shard/commit').length, 1);
});

test('start polls until stop, which ends the loop', async () => {
  const { shards, relayer } = harness();
  shards[0]!.locks = [lock('0x31', 0, 1)];
  relayer.start();
  while (posted(shards[1]!, '/cross-shard/commit').length === 0) await new Promise((r) => setImmediate(r));
  await relayer.stop();
  const n = shards[1]!.posts.length;
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(shards[1]!.posts.length, n);
});
