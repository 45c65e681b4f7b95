import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as nodeHash from './hash.js';
import * as browserHash from './hash.browser.js';
import { utf8Bytes } from '../codec/utf8.js';

// The browser bundle swaps hash.ts for hash.browser.ts: every function must give the same bytes.
test('hash.browser.ts gives the bytes hash.ts gives, for strings, bytes and concatenations', () => {
  const inputs: Array<Uint8Array | string> = ['', 'ch-tx-v4|x', 'é ü 漢字 🙂', new Uint8Array(0), new Uint8Array(3000).map((_, i) => (i * 31) & 255)];
  for (const x of inputs) {
    assert.deepEqual(browserHash.sha3(x), nodeHash.sha3(x));
    assert.deepEqual(browserHash.sha256(x), nodeHash.sha256(x));
    assert.equal(browserHash.sha3Hex0x(x), nodeHash.sha3Hex0x(x));
  }
  const parts = [utf8Bytes('a'), new Uint8Array([0, 1, 2]), utf8Bytes('')];
  assert.deepEqual(browserHash.sha3Concat(...parts), nodeHash.sha3Concat(...parts));
  assert.deepEqual(Object.keys(browserHash.sameSurface).sort(), Object.keys(nodeHash).sort());
});
