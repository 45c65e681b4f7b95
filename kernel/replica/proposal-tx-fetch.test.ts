import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashOfCanonical } from '../tx/hash.js';
import { TAG_TX_REQUEST, TAG_TX_TEXTS, openEnvelope, parseJsonBody, parseTxRequest, type RelayedTx } from './envelope.js';
import { ProposalTxFetch, REQUEST_TIMEOUT_MS, decodeTxAnswer, encodeTxAnswer, type ProposalSlot } from './proposal-tx-fetch.js';

const tx = (n: number): RelayedTx & { hash: string } => {
  const canonical = `{"n":${n}}`;
  return { origin: 'signed', canonical, hash: hashOfCanonical(canonical) };
};
const ref = (t: { hash: string }): { origin: 'signed'; hash: string } => ({ origin: 'signed', hash: t.hash });
const slot = (round: number, proposer = 'v1', height = 5): ProposalSlot => ({ height, round, proposer, key: `${height}/${round}/${proposer}-block` });
const body = new Uint8Array([1, 2, 3]);
const whole = (txs: RelayedTx[]) => ({ txs, cut: false });

function harness(pending: Array<RelayedTx & { hash: string }> = []) {
  const sent: Array<{ peer: string; tag: number; hashes?: string[]; txs?: readonly RelayedTx[]; cut?: boolean }> = [];
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
    deliver: (from, b) => delivered.push({ from, body: b }),
    misbehaved: (peer, reason) => bad.push({ peer, reason }),
    now: () => clock,
  });
  fetch.enterHeight(5);
  return { fetch, sent, delivered, bad, tick: (ms: number) => (clock += ms) };
}

test('a waiting proposal asks its sender, and is delivered once every text it names has come', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness();
  h.fetch.await('a', body, slot(0), [ref(t1), ref(t2)]);
  assert.deepEqual(h.sent, [{ peer: 'a', tag: TAG_TX_REQUEST, hashes: [t1.hash, t2.hash] }]);
  // The same proposal relayed by another peer while it waits asks nothing more.
  h.fetch.await('b', body, slot(0), [ref(t1), ref(t2)]);
  assert.equal(h.sent.length, 1);
  h.fetch.onTexts('a', whole([t1, t2]));
  assert.deepEqual(h.delivered, [{ from: 'a', body }]);
  assert.equal(h.fetch.fetched.get(t1.hash, 'signed')?.canonical, t1.canonical);
  assert.deepEqual(h.fetch.counts, { requested: 2, received: 2 });
  assert.equal(h.fetch.waiting, 0);
  assert.deepEqual(h.bad, []);
});

test('texts are taken only from a peer asked for them, only for what was asked, with the origin asked', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness();
  h.fetch.await('a', body, slot(0), [ref(t1)]);
  h.fetch.onTexts('b', whole([t1])); // nothing asked of b: ignored
  assert.deepEqual(h.delivered, []);
  assert.equal(h.fetch.fetched.size, 0);
  h.fetch.onTexts('a', whole([{ origin: 'system', canonical: t1.canonical }, t2]));
  assert.deepEqual(h.bad, [{ peer: 'a', reason: 'transaction text that was not asked for' }], 'the right text under the wrong origin is not what was asked');
  assert.equal(h.fetch.fetched.size, 0);
  assert.deepEqual(
    h.sent.slice(1).map((s) => [s.peer, s.hashes]),
    [
      ['b', [t1.hash]],
      ['c', [t1.hash]],
    ],
    'what a whole answer lacked is asked of the other peers',
  );
  h.fetch.onTexts('c', whole([t1]));
  assert.deepEqual(h.delivered, [{ from: 'a', body }]);
});

test('a cut answer is asked again for the rest; what a whole answer lacks goes to every other peer, once', () => {
  const [t1, t2, t3] = [tx(1), tx(2), tx(3)];
  const h = harness();
  h.fetch.await('a', body, slot(0), [ref(t1), ref(t2), ref(t3)]);
  h.fetch.onTexts('a', { txs: [t1], cut: true });
  assert.deepEqual(h.sent.at(-1), { peer: 'a', tag: TAG_TX_REQUEST, hashes: [t2.hash, t3.hash] });
  h.fetch.onTexts('a', whole([]));
  assert.deepEqual(
    h.sent.slice(-2).map((s) => [s.peer, s.hashes]),
    [
      ['b', [t2.hash, t3.hash]],
      ['c', [t2.hash, t3.hash]],
    ],
  );
  h.fetch.onTexts('b', whole([]));
  h.fetch.onTexts('c', whole([t2]));
  assert.equal(h.sent.length, 4, 'no second round of asking everyone');
  h.fetch.onPending(t3); // the last one arrives by relay
  assert.deepEqual(h.delivered, [{ from: 'a', body }]);
});

test('a cut answer with nothing in it is misbehaviour, not a reason to ask forever', () => {
  const t1 = tx(1);
  const h = harness();
  h.fetch.await('a', body, slot(0), [ref(t1)]);
  h.fetch.onTexts('a', { txs: [], cut: true });
  assert.deepEqual(h.bad, [{ peer: 'a', reason: 'a cut transaction answer with no texts' }]);
  assert.deepEqual(
    h.sent.slice(1).map((s) => s.peer),
    ['b', 'c'],
  );
});

test('one request in flight per peer: ids needed meanwhile are sent when it is answered, and an unanswered one is given up after the timeout', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness();
  h.fetch.await('a', body, slot(0, 'v1'), [ref(t1)]);
  h.fetch.await('a', body, slot(0, 'v2'), [ref(t2)]);
  assert.equal(h.sent.length, 1);
  h.fetch.onTexts('a', whole([t1]));
  assert.deepEqual(h.sent.at(-1), { peer: 'a', tag: TAG_TX_REQUEST, hashes: [t2.hash] }, 'queued ids are not taken as lacked');
  h.tick(REQUEST_TIMEOUT_MS - 1);
  h.fetch.tick();
  assert.equal(h.sent.length, 2);
  h.tick(1);
  h.fetch.tick();
  assert.deepEqual(
    h.sent.slice(-2).map((s) => [s.peer, s.hashes]),
    [
      ['b', [t2.hash]],
      ['c', [t2.hash]],
    ],
  );
  h.fetch.onTexts('a', whole([t2])); // too late: that request was given up
  assert.deepEqual(h.delivered.length, 1);
  h.fetch.onTexts('b', whole([t2]));
  assert.deepEqual(h.delivered.length, 2);
});

test('one wait per proposer and height: a later round replaces it, an earlier or equal one does not', () => {
  const [t1, t2] = [tx(1), tx(2)];
  const h = harness();
  h.fetch.await('a', body, slot(1), [ref(t1)]);
  h.fetch.await('a', body, slot(0), [ref(t2)]);
  assert.equal(h.fetch.waiting, 1);
  assert.ok(h.fetch.isAwaiting(slot(1).key));
  h.fetch.await('b', body, slot(2), [ref(t2)]);
  assert.equal(h.fetch.waiting, 1);
  assert.ok(h.fetch.isAwaiting(slot(2).key));
  h.fetch.settled(slot(2).key);
  assert.equal(h.fetch.waiting, 0);
});

test('a new height drops earlier waits and asks anew for a kept wait of that height', () => {
  const t1 = tx(1);
  const h = harness();
  h.fetch.await('a', body, slot(0, 'v1', 5), [ref(t1)]);
  h.fetch.await('b', body, slot(0, 'v2', 6), [ref(t1)]);
  assert.equal(h.sent.length, 2);
  h.fetch.enterHeight(6);
  assert.equal(h.fetch.waiting, 1);
  assert.deepEqual(h.sent.at(-1), { peer: 'b', tag: TAG_TX_REQUEST, hashes: [t1.hash] });
  h.fetch.onTexts('b', whole([t1]));
  assert.equal(h.delivered.length, 1);
  h.fetch.await('a', body, slot(0, 'v1', 5), [ref(t1)]);
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
