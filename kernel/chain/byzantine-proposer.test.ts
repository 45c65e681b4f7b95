import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, VALIDATOR_KEY, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { deriveAddress } from '../crypto/address.js';
import { canonicalJson } from '../codec/json.js';
import { stakingPlugin } from '../../plugins/staking/index.js';
import { faucetPlugin } from '../../plugins/faucet/index.js';
import { ibcPlugin } from '../../plugins/ibc/index.js';
import { signOperation } from '../../test/helpers/chain-fixture.js';
import { counterpartyHeader, ibcSigners } from '../../test/helpers/ibc-chain.js';
import { commitmentValue, transferText, voucherHash } from '../../plugins/ibc/packets.js';
import { ibcCommitmentKey } from '../light-client/index.js';

/**
 * What a peer that relays, or a proposer that builds blocks, can try without a valid signature
 * or past admission (found by review; each was reproduced before its fix).
 */
const alice = wallet(111);
const mallory = wallet(112);
const COIN = 1_000_000n;

/**
 * A block a byzantine proposer built with `tx` in it, judged by another validator (which never
 * admitted `tx`): the reason it refuses the block, or null.
 */
async function judgedByAnotherValidator(f: Fixture, tx: ReturnType<Fixture['chain']['rebuildTx']>): Promise<string | null> {
  f.chain.mempool.add(tx);
  const p = await f.chain.propose(0, 'chain:v0.node', Date.now());
  f.chain.mempool.evict(tx.hash);
  return f.chain.validate(p);
}

async function chain(genesisParams: Record<string, string> = {}): Promise<Fixture> {
  return makeChain({ plugins: [stakingPlugin], accounts: [alice, mallory].map((w) => ({ address: w.address, balance: 1_000n * COIN })), genesisParams: { min_stake: String(10n * COIN), ...genesisParams } });
}

test('an unsigned system transaction may only be of a type a plugin declares: kind:node relayed unsigned moves nothing', async () => {
  const f = await chain();
  const owner = deriveAddress(VALIDATOR_KEY.publicKey);
  const body = { type: 'kind:node', from: alice.address, to: 'chain:v0.node', value: 500_000_000 };
  await assert.rejects(f.chain.admitFromPeer('system', body, 0, canonicalJson(body)), /kind:node is not a system transaction type/);
  const tx = f.chain.rebuildTx('system', body, 0n, 0);
  assert.match((await judgedByAnotherValidator(f, tx)) ?? '', /kind:node is not a system transaction type/, 'validators refuse the block');
  // And executed anyway (the proposer's own view), it fails and moves nothing.
  f.chain.mempool.add(tx);
  const b = await f.block();
  assert.equal((await f.chain.queries.getTx(b.tx_hashes[0]!))?.receipt.status, 'failed');
  assert.equal((await f.account(alice.address)).balance, 1_000n * COIN);
  assert.equal((await f.account(owner)).balance, 0n);
});

test('a transaction priced below base_fee fails in the block with nothing charged', async () => {
  const f = await chain({ base_fee: '10' });
  const body = signTransfer(alice, { to: mallory.address, value: 5, nonce: 1, gas_price: 0, version: 'v3', baseFee: 10n });
  await assert.rejects(f.chain.admit(body, 0), /below base_fee/);
  f.chain.mempool.add(f.chain.rebuildTx('signed', body, 10n, 0));
  const b = await f.block();
  const rec = await f.chain.queries.getTx(b.tx_hashes[0]!);
  assert.equal(rec?.receipt.status, 'failed');
  assert.equal(rec?.receipt.fee, 0n);
  assert.equal(b.fees_burned, 0n);
  assert.equal((await f.account(alice.address)).balance, 1_000n * COIN);
});

test('a committed transaction included again is refused: a faucet credit does not apply twice, a receipt does not flip', async () => {
  const f = await makeChain({ plugins: [faucetPlugin], pluginConfig: [{ name: 'faucet', options: { default_amount: 1000, max_amount: 1000 } }], accounts: [{ address: alice.address, balance: 1_000n * COIN }] });
  const w = wallet(120);
  const credit = await f.chain.admitSystem('faucet', 'chain:system.faucet', w.address, 1000n, { address: w.address, public_key: w.publicKeyHex, amount: 1000, requested_at: 1 }, 0);
  const sent = await f.chain.admit(signTransfer(alice, { to: mallory.address, value: 5, nonce: 1 }), 0);
  await f.block();
  const transfer = await f.chain.queries.getTx(sent.tx_hash);
  assert.match((await judgedByAnotherValidator(f, credit)) ?? '', /is already committed/);
  assert.match((await judgedByAnotherValidator(f, f.chain.rebuildTx('signed', transfer!.tx.body as Record<string, unknown>, 1n, 0))) ?? '', /is already committed/);
  assert.equal((await f.account(w.address)).balance, 1000n);
  assert.equal((await f.chain.queries.getTx(sent.tx_hash))?.receipt.status, 'confirmed');
});

test('IBC past admission: a forged recv and an under-signed client update fail in the block and move nothing', async () => {
  const operator = wallet(113);
  const f = await makeChain({ plugins: [ibcPlugin], pluginConfig: [{ name: 'ibc', options: { operator_pubkeys: operator.publicKeyHex } }], accounts: [operator, alice].map((w) => ({ address: w.address, balance: 1_000n * COIN })) });
  let nonce = 1_950_000_000_000;
  const op = (kind: string, body: Record<string, unknown>, version: 'v2' | 'v4' = 'v4') => signOperation(operator, { kind, actor: operator.address, target: 'chain:system.ibc', nonce: ++nonce, value: typeof body['amount'] === 'number' ? body['amount'] : 0, body: { from: operator.address, ...body }, version });
  const applied = async (kind: string, body: Record<string, unknown>) => {
    const tx = f.chain.rebuildTx('signed', f.operations.envelope(kind, body, {}), 1n, 0);
    f.chain.mempool.add(tx);
    await f.block();
    return (await f.chain.queries.getTx(tx.hash))!.receipt;
  };
  const set = ibcSigners([10, 10, 10]);
  assert.equal((await applied('ibc_channel_open', op('ibc_channel_open', { channel: 'ch-1', port: 'transfer', counterparty_chain: 'ibc-b', allowed_denoms: ['uatom'] }))).status, 'confirmed');
  const fields = { sender: 'cosmos1s', receiver: alice.address, denom: 'uatom', amount: 10, memo: '' };
  const value = commitmentValue(100, transferText({ ...fields, amount: 10n, channel: 'ch-1' }));
  const h = await counterpartyHeader({ chainId: 'ibc-b', height: 5, validators: set, records: { [ibcCommitmentKey('ch-1', 1)]: value } });
  assert.equal((await applied('ibc_client_update', op('ibc_client_update', { header: h.header }))).status, 'confirmed');

  const underSigned = await counterpartyHeader({ chainId: 'ibc-b', height: 6, validators: set, signers: set.slice(0, 2) });
  const update = await applied('ibc_client_update', op('ibc_client_update', { header: underSigned.header }));
  assert.equal(update.status, 'failed');
  assert.match(update.error ?? '', /not more than 2\/3/);

  const proof = (await h.prove(ibcCommitmentKey('ch-1', 1))).proof;
  const forged = await applied('ibc_recv', op('ibc_recv', { packet_id: 'ibc-b/ch-1/1', ...fields, amount: 10_000, timeout_height: 100, proof_height: 5, proof }));
  assert.equal(forged.status, 'failed');
  assert.match(forged.error ?? '', /proof does not prove/);
  assert.equal(await f.pluginState('ibc').get('receipts/ch-1/1'), undefined, 'no receipt, nothing credited');
  assert.equal(await f.pluginState('ibc').get(`vouchers/${alice.address}/${voucherHash('transfer/ch-1/uatom')}`), undefined);
  // The honest packet still goes through once.
  assert.equal((await applied('ibc_recv', op('ibc_recv', { packet_id: 'ibc-b/ch-1/1', ...fields, timeout_height: 100, proof_height: 5, proof }))).status, 'confirmed');
  assert.equal(new TextDecoder().decode(await f.pluginState('ibc').get(`vouchers/${alice.address}/${voucherHash('transfer/ch-1/uatom')}`)), '10');

});
