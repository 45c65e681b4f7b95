import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { txIdentity, txIdentityOfText } from './hash.js';

/*
 * decisions.md §12 pinned: a transaction's id is SHA3-256 over the canonical JSON of the body
 * (keys sorted by UTF-16 code units, compact, strings escaped as JSON.stringify does). The
 * expected text is written out by hand and hashed by noble's pure-JS SHA3, so a change to the
 * encoder or the hash that alters ids on the wire fails here, whatever both sides compute.
 */
const body = { value: 5, to: 'chain:bbbbbbbbbbbbbbb.human', signature: 'cd'.repeat(4), public_key: 'ab'.repeat(4), nonce: 1, gas_price: 2, from: 'chain:aaaaaaaaaaaaaaa.human', data: 'x"y\u00e9\n' };
const expected =
  '{"data":"x\\"yé\\n","from":"chain:aaaaaaaaaaaaaaa.human","gas_price":2,"nonce":1,"public_key":"abababab","signature":"cdcdcdcd","to":"chain:bbbbbbbbbbbbbbb.human","value":5}';
const expectedId = '0x' + bytesToHex(sha3_256(utf8ToBytes(expected)));

test('a transaction id is SHA3-256 of the hand-written canonical text, whichever way the body arrived', () => {
  assert.deepEqual(txIdentity(body), { canonical: expected, hash: expectedId });
  assert.deepEqual(txIdentityOfText(expected, JSON.parse(expected) as Record<string, unknown>), { canonical: expected, hash: expectedId });
  // The long strings of a kept text become slices of it: equal values, so the body reads the same.
  const longBody = { ...body, signature: 'cd'.repeat(3309), public_key: 'ab'.repeat(1952) };
  const longText = txIdentity(longBody).canonical;
  const parsed = JSON.parse(longText) as Record<string, unknown>;
  assert.equal(txIdentityOfText(longText, parsed).canonical, longText);
  assert.deepEqual(parsed, longBody);
  const spaced = JSON.stringify(body, null, 2);
  assert.deepEqual(txIdentityOfText(spaced, JSON.parse(spaced) as Record<string, unknown>), { canonical: expected, hash: expectedId });
  assert.deepEqual(txIdentityOfText(undefined, body), { canonical: expected, hash: expectedId });
});
