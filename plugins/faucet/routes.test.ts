import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError, type RpcRequest } from '../../kernel/sdk.js';
import { faucetRoute } from './routes.js';

const address = 'chain:307f4559431e680.human';
const public_key = 'ab'.repeat(1952);

const request = (body: unknown): RpcRequest => ({ method: 'POST', path: '/api/v1/faucet', params: {}, query: new URLSearchParams(), headers: {}, body, ip: '127.0.0.1' });

function refusal(body: unknown): { message: string; hint: string | undefined } {
  try {
    faucetRoute.parse(request(body));
  } catch (e) {
    assert.ok(isChainError(e) && e.status === 400, String(e));
    return { message: e.message, hint: e.hint };
  }
  assert.fail(`accepted ${JSON.stringify(body)}`);
}

test('a faucet request may carry the signed fields of a socket write method; they are accepted and ignored', () => {
  const signed = { address, public_key, amount: 5, signature: 'cd'.repeat(3309), nonce: 1_700_000_000_000 };
  assert.deepEqual(faucetRoute.parse(request(signed)).body, { address, public_key, amount: 5 });
  assert.deepEqual(faucetRoute.parse(request({ address, public_key, nonce: 0 })).body, { address, public_key });
  assert.deepEqual(faucetRoute.parse(request({ address, public_key })).body, { address, public_key });
});

test('the faucet body as documented is part 1\'s: an unsigned write, so no signature (decisions.md §87)', () => {
  assert.deepEqual(Object.keys(faucetRoute.body!.properties).sort(), ['address', 'amount', 'public_key']);
});

test('a faucet request with a field of the wrong type, a missing field or an unknown one is a 400 naming it, with the fields to send', () => {
  assert.match(refusal({ address, public_key, nonce: 'soon' }).message, /^body field nonce: /);
  assert.match(refusal({ address, public_key, nonce: 1.5 }).message, /^body field nonce: /);
  assert.match(refusal({ address, public_key, signature: 7 }).message, /^body field signature: /);
  assert.match(refusal({ address, public_key, amount: '5' }).message, /^body field amount: /);
  assert.match(refusal({ public_key }).message, /^body field address: /);
  assert.match(refusal({ address, public_key, memo: 'hi' }).message, /^body field memo: /);
  assert.equal(refusal({ public_key }).hint, 'send {"address", "public_key", "amount"?}');
  assert.equal(refusal({ address, public_key, signature: 7 }).hint, 'send {"address", "public_key", "amount"?}');
});
