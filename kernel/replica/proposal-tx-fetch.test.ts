import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashOfCanonical } from '../tx/hash.js';
import { TAG_TX_REQUEST, TAG_TX_TEXTS, openEnvelope, parseJsonBody, parseTxRequest, type RelayedTx } from './envelope.js';
import { ProposalTxFetch, decodeTxAnswer, encodeTxAnswer } from './proposal-tx-fetch.js';

const tx = (n: number): RelayedTx & { hash: string } => {
  const canonical = `{"n":${n}}`;
  return { origin: 'signed', canonical, hash: hashOfCanonical(canonical) };
};
const ref = (t: { hash: string }): { origin: 'signed'; hash: string } => ({ origin: 'signed', hash: t.hash });

function harness(pending: Array<RelayedTx & { hash: string }> = []) {
  const sent: Array<{ peer: string; tag: number; hashes?: string[]; texts?: readonly RelayedTx[]; cut?: boolean }> = [];
  const delivered: Array<{ from: string; body: Uint8Array }> = [];
  const bad: Array<{ peer: string; reason: string }> = [];
  let clock = 0;
  const fetch = new ProposalTxFetch({
    send: (peer, bytes) => {
      const env = openEnvelope(bytes)!;
      if (env.tag === TAG_TX_REQUEST) sent.push({ peer, tag: env.tag, hashes: parseTxRequest(parseJsonBody(env.body))! });
      else sent.push({ peer, tag: env.tag, ...decodeTxAnswer(env.body)! });
    },
    peers: () => ['a', 'b', 'c'],
    pendingTx: (hash) => pending.find((t) => t.hash === hash),
    deliver: (from, body) => delivered.push({ from, body }),
    misbehaved: (peer, reason) => bad.push({ peer, reason }),
    now: () => clock,
  });
  fetch.enterHeight(5);
  return { fetch, sent, delivered, bad, tick: (ms: number) => (clock += ms) };
}

const body = new Uint8Array([1, 2, 3]);
const whole = (txs: RelayedTx[]) => ({ txs, cut: false });

test('a waiting proposal asks its sender, and is delivered once every text it names has come', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness();
  h.fetch.await('a', body, 'k', 5, [ref(t1), ref(t2)]);
  assert.deepEqual(h.sent, [{ peer: 'a', tag: TAG_TX_REQUEST, hashes: [t1.hash, t2.hash] }]);
  // A re-send of the same proposal while it waits asks nothing more.
  h.fetch.await('b', body, 'k', 5, [ref(t1), ref(t2)]);
  assert.equal(h.sent.length, 1);
  h.fetch.onTexts('a', whole([t1, t2]));
  assert.deepEqual(h.delivered, [{ from: 'a', body }]);
  assert.equal(h.fetch.fetched.get(t1.hash, 'signed')?.canonical, t1.canonical);
  assert.deepEqual(h.fetch.counts, { requested: 2, received: 2 });
  assert.equal(h.fetch.waiting, 0);
  assert.deepEqual(h.bad, []);
});

test('texts are taken only from a peer asked for them, and only those it was asked for', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness();
  h.fetch.await('a', body, 'k', 5, [ref(t1)]);
  h.fetch.onTexts('b', whole([t1])); // not asked: ignored
  assert.deepEqual(h.delivered, []);
  assert.equal(h.fetch.fetched.size, 0);
  h.fetch.onTexts('a', whole([t2, t1])); // asked for t1 only: the request ends at the first stranger
  assert.deepEqual(h.bad, [{ peer: 'a', reason: 'transaction text that was not asked for' }]);
  assert.deepEqual(h.delivered, []);
  assert.equal(h.fetch.fetched.size, 0);
  h.fetch.onTexts('a', whole([t1])); // the request is over
  assert.deepEqual(h.delivered, []);
});

test('a sender whose answer was cut is asked for the rest; what a whole answer lacks is asked of every other peer, once', () => {
  const [t1, t2, t3] = [tx(1), tx(2), tx(3)];
  const h = harness();
  h.fetch.await('a', body, 'k', 5, [ref(t1), ref(t2), ref(t3)]);
  h.fetch.onTexts('a', { txs: [t1], cut: true }); // cut at the frame bound: ask again for the rest
  assert.deepEqual(h.sent.at(-1), { peer: 'a', tag: TAG_TX_REQUEST, hashes: [t2.hash, t3.hash] });
  h.fetch.onTexts('a', whole([])); // has none of them
  assert.deepEqual(
    h.sent.slice(-2).map((s) => [s.peer, s.hashes]),
    [
      ['b', [t2.hash, t3.hash]],
      ['c', [t2.hash, t3.hash]],
    ],
  );
  h.fetch.onTexts('b', whole([]));
  h.fetch.onTexts('c', whole([t2]));
  assert.equal(h.sent.length, 4, 'no third round of asking everyone');
  // The last one arrives by relay.
  h.fetch.onPending(t3);
  assert.deepEqual(h.delivered, [{ from: 'a', body }]);
});

test('a request still unanswered is sent again after a second when another proposal needs that peer', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness();
  h.fetch.await('a', body, 'k1', 5, [ref(t1)]);
  h.fetch.await('a', body, 'k2', 5, [ref(t2)]);
  assert.equal(h.sent.length, 1, 'one request in flight per peer');
  h.tick(1500);
  h.fetch.await('a', body, 'k3', 5, [ref(t2)]);
  assert.deepEqual(h.sent.at(-1)?.hashes, [t1.hash, t2.hash]);
});

test('a proposal that decoded by itself, or an earlier height, stops the wait', () => {
  const t1 = tx(1);
  const h = harness();
  h.fetch.await('a', body, 'k', 5, [ref(t1)]);
  h.fetch.settled('k');
  h.fetch.onTexts('a', whole([t1]));
  assert.deepEqual(h.delivered, []);
  h.fetch.await('a', body, 'k2', 5, [ref(t1)]);
  h.fetch.enterHeight(6);
  assert.equal(h.fetch.waiting, 0);
  h.fetch.await('a', body, 'k3', 5, [ref(t1)]);
  assert.equal(h.fetch.waiting, 0, 'a proposal for a height already passed is not kept');
});

test('requests are answered from what admission holds or was fetched, empty when nothing is, and only so often per height', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness([t1]);
  h.fetch.onRequest('b', [t1.hash, t1.hash, t2.hash]);
  assert.deepEqual(h.sent.at(-1), { peer: 'b', tag: TAG_TX_TEXTS, txs: [{ origin: 'signed', canonical: t1.canonical }], cut: false });
  h.fetch.onRequest('b', [t2.hash]);
  assert.deepEqual(h.sent.at(-1), { peer: 'b', tag: TAG_TX_TEXTS, txs: [], cut: false });
  for (let i = 0; i < 40; i++) h.fetch.onRequest('c', [t1.hash]);
  assert.equal(h.sent.filter((s) => s.peer === 'c').length, 32);
  assert.deepEqual(h.bad, [{ peer: 'c', reason: 'too many transaction requests in one height' }]);
  h.fetch.enterHeight(6);
  h.fetch.onRequest('c', [t1.hash]);
  assert.equal(h.sent.filter((s) => s.peer === 'c').length, 33);
});

test('an answer is a cut flag and a batch; anything else is malformed', () => {
  const t1 = tx(1);
  assert.deepEqual(decodeTxAnswer(encodeTxAnswer([t1], true)), { txs: [{ origin: 'signed', canonical: t1.canonical }], cut: true });
  assert.deepEqual(decodeTxAnswer(encodeTxAnswer([], false)), { txs: [], cut: false });
  assert.equal(decodeTxAnswer(new Uint8Array(0)), null);
  assert.equal(decodeTxAnswer(new Uint8Array([2])), null);
  assert.equal(decodeTxAnswer(new Uint8Array([0, 9, 9])), null);
});
