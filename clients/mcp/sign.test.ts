import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { CachingVerifier } from '../../kernel/crypto/verifier.js';
import { deriveAddress } from '../../kernel/crypto/address.js';
import { parseHex, toHex } from '../../kernel/codec/hex.js';
import { isChainError } from '../../kernel/errors.js';
import { parseSubmission } from '../../kernel/tx/submission.js';
import { txIdentity } from '../../kernel/tx/hash.js';
import { verifyTransferSignature, type SignaturePolicy } from '../../kernel/tx/signature.js';
import { parseMcpConfig } from './config.js';
import { signWrite } from './sign.js';

const seed = new Uint8Array(32).fill(21);
const account = deriveAddress(nobleProvider.keygen(new Uint8Array(32).fill(22)).publicKey);
const session = parseMcpConfig({ node_rpc: 'http://127.0.0.1:3000', account, session_pk: toHex(nobleProvider.keygen(seed).publicKey), sk_seed_hex: toHex(seed) }).session!;
const STRONG: SignaturePolicy = { chainId: 'mcp-test-chain', baseFee: 3n, requireStrong: true };

/** The body as the node's admission reads it, then the node's own signature check (kernel/tx/signature.ts). */
async function nodeCheck(body: Record<string, unknown>, policy: SignaturePolicy = STRONG): Promise<string> {
  const sub = parseSubmission(body);
  const { hash } = txIdentity(sub.body);
  return verifyTransferSignature({ ...sub, hash }, policy, parseHex(sub.public_key)!, new CachingVerifier(nobleProvider));
}

test('a transfer the tool signs is accepted by the kernel\'s own signature check, as ch-tx-v4, on a network that requires strong signatures', async () => {
  const body = signWrite(session, { chainId: STRONG.chainId, from: account, to: 'chain:0123456789abcde.human', value: 123_457n, nonce: 4n, gasPrice: 3n });
  assert.deepEqual(Object.keys(body).sort(), ['from', 'gas_price', 'nonce', 'public_key', 'signature', 'to', 'value'], 'exactly the fields of decisions.md §80');
  assert.deepEqual([body.value, body.nonce, body.gas_price, body.public_key], [123_457, 4, 3, session.publicKeyHex]);
  assert.equal(await nodeCheck(body), 'v4');
});

test('a call\'s data is covered: the signature names the chain and the payload, so neither can be swapped', async () => {
  const data = JSON.stringify({ function: 'transfer', args: { to: account, amount: '2.5' } });
  const body = signWrite(session, { chainId: STRONG.chainId, from: account, to: 'chain:0123456789.app', value: 0n, nonce: 1n, gasPrice: 3n, data });
  assert.equal(body.data, data);
  assert.equal(await nodeCheck(body), 'v4');
  const refusedWith = async (b: Record<string, unknown>, policy: SignaturePolicy = STRONG) => assert.rejects(nodeCheck(b, policy), (e: unknown) => isChainError(e) && e.status === 401);
  await refusedWith({ ...body, data: JSON.stringify({ function: 'transfer', args: { to: account, amount: '250' } }) });
  await refusedWith(body, { ...STRONG, chainId: 'another-chain' });
  await refusedWith({ ...body, gas_price: 4 });
});
