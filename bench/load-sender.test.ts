import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlatOutCursor, type Transfer, type TransferSink } from './load-sender.js';

/** A pool as the bench builds it: transfer k is account k mod `accounts`'s next nonce. */
const pool = (size: number, accounts: number): Transfer[] => Array.from({ length: size }, (_, k) => ({ i: k % accounts, body: `account ${k % accounts} nonce ${Math.floor(k / accounts) + 1}` }));

/** Records what was sent, in the order sends began, answering each after a turn of the event loop. */
class Recorder implements TransferSink {
  readonly bodies: string[] = [];
  readonly inFlight = new Map<number, number>();
  maxInFlight = 0;
  overlapSameAccount = false;
  deadline: number | undefined;

  async submit(t: Transfer, retryOverloadUntil?: number): Promise<void> {
    this.deadline = retryOverloadUntil;
    this.bodies.push(t.body);
    if ((this.inFlight.get(t.i) ?? 0) > 0) this.overlapSameAccount = true;
    this.inFlight.set(t.i, (this.inFlight.get(t.i) ?? 0) + 1);
    this.maxInFlight = Math.max(this.maxInFlight, [...this.inFlight.values()].reduce((a, b) => a + b, 0));
    await new Promise((r) => setImmediate(r));
    this.inFlight.set(t.i, this.inFlight.get(t.i)! - 1);
  }
}

test('flat out sends the whole pool once, at most inflight at a time, never two of one account at once, each account in nonce order', async () => {
  const p = pool(53, 7);
  const cursor = new FlatOutCursor(p, 7, 4);
  const rec = new Recorder();
  await cursor.send(Number.POSITIVE_INFINITY, rec);
  assert.equal(cursor.exhausted, true);
  assert.deepEqual([...rec.bodies].sort(), p.map((t) => t.body).sort(), 'every transfer once');
  assert.equal(rec.maxInFlight, 4);
  assert.equal(rec.overlapSameAccount, false);
  for (let a = 0; a < 7; a++) {
    const nonces = rec.bodies.filter((b) => b.startsWith(`account ${a} `)).map((b) => Number(b.split(' ')[3]));
    assert.deepEqual(nonces, [...nonces].sort((x, y) => x - y), `account ${a} in nonce order`);
  }
  assert.equal(rec.deadline, Number.POSITIVE_INFINITY, 'overload retries bounded by the phase end (plus a margin)');
});

test('a phase whose time is up sends nothing, and the next phase on the cursor starts where it stopped', async () => {
  const p = pool(20, 5);
  const cursor = new FlatOutCursor(p, 5, 8);
  const rec = new Recorder();
  await cursor.send(0, rec);
  assert.deepEqual(rec.bodies, []);
  assert.equal(cursor.exhausted, false);
  await cursor.send(Number.POSITIVE_INFINITY, rec);
  assert.equal(rec.bodies.length, 20);
  assert.equal(rec.maxInFlight, 5, 'no more lanes than accounts');
  await cursor.send(Number.POSITIVE_INFINITY, rec);
  assert.equal(rec.bodies.length, 20, 'an exhausted cursor sends nothing again');
});
