import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError } from '../../kernel/sdk.js';
import { parseFaucetRequest } from './schemas.js';

const address = 'chain:307f4559431e680.human';
const public_key = 'ab'.repeat(1952);

function refusal(body: unknown): string {
  try {
    parseFaucetRequest(body);
  } catch (e) {
    assert.ok(isChainError(e) && e.status === 400, String(e));
    return e.message;
  }
  assert.fail(`accepted ${JSON.stringify(body)}`);
}

test('a faucet request may carry the signed fields of a socket write method; they are accepted and ignored', () => {
  const signed = { address, public_key, amount: 5, signature: 'cd'.repeat(3309), nonce: 1_700_000_000_000 };
  assert.deepEqual(parseFaucetRequest(signed), signed);
  assert.deepEqual(parseFaucetRequest({ address, public_key }), { address, public_key });
});

test('a faucet request with a field of the wrong type, a missing field or an unknown one is a 400 naming it', () => {
  assert.match(refusal({ address, public_key, nonce: 'soon' }), /^faucet request: nonce /);
  assert.match(refusal({ address, public_key, nonce: 1.5 }), /^faucet request: nonce /);
  assert.match(refusal({ address, public_key, signature: 7 }), /^faucet request: signature /);
  assert.match(refusal({ address, public_key, amount: '5' }), /^faucet request: amount /);
  assert.match(refusal({ public_key }), /^faucet request: address /);
  assert.match(refusal({ address, public_key, memo: 'hi' }), /^faucet request: memo /);
});
