import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certificateToJson } from '../consensus/wire.js';
import { utf8Bytes } from '../codec/utf8.js';
import { precommitSigners } from './commit-signers.js';

test('the signers of a stored commit certificate are its precommits\' validators; no certificate, no signers', () => {
  const blockHash = new Uint8Array(32).fill(7);
  const precommit = (validator: string) => ({ vote: { type: 'precommit' as const, height: 9, round: 1, blockHash, validator }, signature: new Uint8Array(8).fill(1) });
  const cert = { height: 9, round: 1, blockHash, precommits: [precommit('chain:a.node'), precommit('chain:c.node')] };
  assert.deepEqual(precommitSigners(utf8Bytes(JSON.stringify(certificateToJson(cert)))), ['chain:a.node', 'chain:c.node']);
  assert.deepEqual(precommitSigners(undefined), []);
  assert.deepEqual(precommitSigners(utf8Bytes('{"height":')), [], 'bytes that do not decode count no precommit');
});
