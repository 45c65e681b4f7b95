import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tx } from '../chain/types.js';
import { decodeTxBatch, encodeTxBatch, encodeTxRelay, decodeTxRelay } from '../replica/envelope.js';
import { txIdentity } from './hash.js';
import { heldText, setsOwnGasPrice, textBackedTx, txText, txTextBytes, withGasPrice, type TxFields } from './text-backed-tx.js';

const body = { from: 'chain:aaaaaaaaaaaaaaa.human', to: 'chain:bbbbbbbbbbbbbbb.human', value: 5, nonce: 1, signature: 'ab'.repeat(3309), public_key: 'cd'.repeat(1952), data: 'naïve ✓' };
const { canonical, hash } = txIdentity(body);
const fields: TxFields = { hash, origin: 'signed', target: 'transfer', from: body.from, to: body.to, value: 5n, nonce: 1n, gasPrice: 7n, data: body.data, sigVersion: 'v2', receivedAt: 1 };
const plain: Tx = { ...fields, body, canonical };

test('a text-backed transaction reads back the text and body it was built from, as a plain one does', () => {
  const tx = textBackedTx(fields, Buffer.from(canonical, 'utf8'), false);
  assert.equal(tx.canonical, canonical);
  assert.deepEqual(tx.body, body);
  assert.notEqual(tx.body, tx.body, 'decoded on every read, never kept');
  assert.deepStrictEqual(tx, plain, 'the held bytes are not enumerable: it compares equal to the plain form');
  assert.deepStrictEqual({ ...tx }, plain, 'a spread copy is the plain form');
  assert.equal(heldText({ ...tx }), undefined);
  assert.equal(txTextBytes(tx), Buffer.byteLength(canonical, 'utf8'));
  assert.equal(txTextBytes(tx), txTextBytes(plain));
  assert.deepEqual(Buffer.from(txText(tx)), Buffer.from(txText(plain)));
});

test('gas_price: a known answer is used without parsing, an unknown one is read from the body', () => {
  const own = txIdentity({ ...body, gas_price: 9 });
  const ownFields = { ...fields, hash: own.hash };
  assert.equal(setsOwnGasPrice(textBackedTx(fields, Buffer.from(canonical), false)), false);
  assert.equal(setsOwnGasPrice(textBackedTx(fields, Buffer.from(canonical), undefined)), false);
  assert.equal(setsOwnGasPrice(textBackedTx(ownFields, Buffer.from(own.canonical), undefined)), true);
  assert.equal(setsOwnGasPrice(plain), false);
  assert.equal(setsOwnGasPrice({ ...plain, body: { ...body, gas_price: 9 } }), true);
});

test('withGasPrice changes only the price, and a text-backed transaction keeps its bytes', () => {
  const text = Buffer.from(canonical, 'utf8');
  const tx = textBackedTx(fields, text, false);
  const repriced = withGasPrice(tx, 11n);
  assert.equal(repriced.gasPrice, 11n);
  assert.equal(tx.gasPrice, 7n);
  assert.equal(heldText(repriced), text, 'the same bytes, not a copy');
  assert.deepStrictEqual(repriced, { ...plain, gasPrice: 11n });
  assert.deepStrictEqual(withGasPrice(plain, 11n), { ...plain, gasPrice: 11n });
});

test('relay and WAL encodings of a text-backed transaction are byte-identical to the string form', () => {
  const tx = textBackedTx(fields, Buffer.from(canonical, 'utf8'), false);
  const system: Tx = { ...fields, origin: 'system', target: 'faucet', body: { type: 'faucet' }, canonical: '{"type":"faucet"}' };
  assert.deepEqual(Buffer.from(encodeTxRelay(tx)), Buffer.from(encodeTxRelay(plain)));
  assert.deepEqual(decodeTxRelay(encodeTxRelay(tx)), { origin: 'signed', canonical });
  const batch = encodeTxBatch([tx, system]);
  assert.deepEqual(Buffer.from(batch), Buffer.from(encodeTxBatch([plain, system])));
  assert.deepEqual(decodeTxBatch(batch), [
    { origin: 'signed', canonical },
    { origin: 'system', canonical: '{"type":"faucet"}' },
  ]);
});
