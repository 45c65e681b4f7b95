import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTxBatch, decodeTxRelay, encodeTxBatch, encodeTxRelay, envelope, openEnvelope, parseRelayedTxs } from './envelope.js';

const a = '{"from":"a","to":"b","memo":"snow ☃"}';
const b = '{"type":"faucet","to":"c"}';

test('a relay batch carries each transaction\'s origin and exact text, in order', () => {
  const batch = [
    { origin: 'signed' as const, canonical: a },
    { origin: 'system' as const, canonical: b },
    { origin: 'signed' as const, canonical: a },
  ];
  assert.deepEqual(decodeTxBatch(encodeTxBatch(batch)), batch);
  // A view into a larger buffer (how frames arrive) decodes the same.
  const bytes = encodeTxBatch(batch);
  const framed = new Uint8Array(bytes.length + 3);
  framed.set(bytes, 3);
  assert.deepEqual(decodeTxBatch(framed.subarray(3)), batch);
});

test('leading bytes written with the batch give the same bytes as wrapping it afterwards', () => {
  const batch = [
    { origin: 'signed' as const, canonical: a },
    { origin: 'system' as const, canonical: b },
  ];
  assert.deepEqual(encodeTxBatch(batch, [7]), envelope(7, encodeTxBatch(batch)));
  assert.equal(Buffer.isBuffer(encodeTxBatch(batch, [7])), false, 'slice() must copy, as for every other message');
  const opened = openEnvelope(encodeTxBatch(batch, [8, 1]))!;
  assert.equal(opened.tag, 8);
  assert.equal(opened.body[0], 1);
  assert.deepEqual(decodeTxBatch(opened.body.subarray(1)), batch);
  assert.deepEqual(encodeTxBatch([], [8, 0]), Uint8Array.of(8, 0));
});

test('a lone relayed transaction: leading bytes written with it give the same bytes as wrapping it afterwards', () => {
  assert.deepEqual(encodeTxRelay('system', b, [5]), envelope(5, encodeTxRelay('system', b)));
  assert.equal(Buffer.isBuffer(encodeTxRelay('signed', a, [5])), false, 'slice() must copy, as for every other message');
  const opened = openEnvelope(encodeTxRelay('signed', a, [5]))!;
  assert.equal(opened.tag, 5);
  assert.deepEqual(decodeTxRelay(opened.body), { origin: 'signed', canonical: a });
  assert.deepEqual(decodeTxRelay(encodeTxRelay('system', b)), { origin: 'system', canonical: b });
});

test('a malformed relay batch is refused whole', () => {
  const good = encodeTxBatch([{ origin: 'signed', canonical: a }, { origin: 'signed', canonical: b }]);
  assert.equal(decodeTxBatch(new Uint8Array(0)), null, 'empty');
  assert.equal(decodeTxBatch(good.subarray(0, good.length - 1)), null, 'last text cut short');
  assert.equal(decodeTxBatch(good.subarray(0, 3)), null, 'length cut short');
  const badOrigin = Uint8Array.from(good);
  badOrigin[0] = 2;
  assert.equal(decodeTxBatch(badOrigin), null, 'unknown origin byte');
  const notUtf8 = encodeTxBatch([{ origin: 'signed', canonical: 'xx' }]);
  notUtf8[5] = 0xff;
  assert.equal(decodeTxBatch(notUtf8), null, 'text that is not UTF-8');
  const huge = Uint8Array.from(good);
  new DataView(huge.buffer).setUint32(1, 0xffff_ffff, false);
  assert.equal(decodeTxBatch(huge), null, 'length past the end');
});

test('relayed texts are parsed to objects, and a relay with any text that is not a JSON object is refused whole', () => {
  const ok = parseRelayedTxs([{ origin: 'signed', canonical: '{"a":1}' }, { origin: 'system', canonical: '{"b":"x"}' }]);
  assert.deepEqual(ok, [
    { origin: 'signed', canonical: '{"a":1}', body: { a: 1 } },
    { origin: 'system', canonical: '{"b":"x"}', body: { b: 'x' } },
  ]);
  for (const bad of ['[1]', 'null', '"s"', '{"a":', '7']) assert.equal(parseRelayedTxs([{ origin: 'signed', canonical: '{"a":1}' }, { origin: 'signed', canonical: bad }]), null, bad);
  assert.equal(parseRelayedTxs(null), null, 'a relay that did not decode');
});
