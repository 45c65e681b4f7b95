import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { makeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { signTransferBody } from './transfer.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/*
 * `chain send` signs ch-tx-v4 (decisions.md §94). The layout is written out here from the spec,
 * not taken from the kernel's builder, and checked with noble directly: a builder that drifted
 * (v2, v3, another field order, the chain id left out) would fail.
 */
test('chain send signs ch-tx-v4|<chain_id>|tx|<from>|<to>|<value>|<nonce>|<gas_price>|0|<SHA3 of the empty data>, and nothing else', () => {
  const key = makeKeyFile(nobleProvider, new Uint8Array(32).fill(1));
  assert.equal(key.file.address, 'chain:307f4559431e680.human', 'decisions.md §4 vector');
  const to = 'chain:0123456789abcde.human';
  const body = signTransferBody(key, { chainId: 'pq-test-1', to, value: 1_500_000n, nonce: 3n, gasPrice: 2n }, nobleProvider);
  assert.deepEqual(Object.keys(body).sort(), ['from', 'gas_price', 'nonce', 'public_key', 'signature', 'to', 'value']);
  assert.deepEqual([body.from, body.to, body.value, body.nonce, body.gas_price, body.public_key], [key.file.address, to, 1_500_000, 3, 2, key.file.public_key]);
  const signature = Buffer.from(body.signature as string, 'hex');
  const publicKey = Buffer.from(key.file.public_key, 'hex');
  const emptyData = `0x${hex(sha3_256(utf8('')))}`;
  const v4 = (chainId: string): Uint8Array => utf8(`ch-tx-v4|${chainId}|tx|${key.file.address}|${to}|1500000|3|2|0|${emptyData}`);
  assert.equal(ml_dsa65.verify(signature, v4('pq-test-1'), publicKey), true, 'the v4 text of §94');
  assert.equal(ml_dsa65.verify(signature, v4('pq-test-2'), publicKey), false, 'valid on its own chain only');
  assert.equal(ml_dsa65.verify(signature, utf8(`ch-tx-v2|${key.file.address}|${to}|1500000|3`), publicKey), false, 'not the weak v2 layout');
});
