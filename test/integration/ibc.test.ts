import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { labelledWallet, signOperation, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock, sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { counterpartyHeader, ibcSigners } from '../helpers/ibc-chain.js';
import { toHex } from '../../kernel/codec/hex.js';
import { ibcCommitmentKey } from '../../kernel/light-client/index.js';
import { commitmentValue, transferText, voucherDenom } from '../../plugins/ibc/public.js';

/**
 * The ibc plugin on a real 2-validator devnet, through the gateway as a client would: the
 * devnet's validator-0 key is an operator (decisions.md §63), a client of a synthetic
 * counterparty is created from a header real test keys signed, a proven inbound packet mints a
 * voucher, an outbound transfer is escrowed; every read is checked against its declaration
 * (CHAIN_VALIDATE_RESPONSES) and every validator ends on the same state root.
 */
let clock = Date.now();
const B = 'ibc-b';
const CH = 'ch-1';

describe('ibc on a real devnet', () => {
  let net: TestDevnet;
  let operator: Wallet;
  const gw = (): string => net.gatewayUrl;
  const op = (w: Pick<Wallet, 'keys' | 'publicKeyHex' | 'address'>, kind: string, body: Record<string, unknown>, version: 'v2' | 'v4' = 'v4') =>
    signOperation(w, { kind, actor: w.address, target: 'chain:system.ibc', nonce: ++clock, value: typeof body['amount'] === 'number' && kind !== 'ibc_ack' ? body['amount'] : 0, body: { from: w.address, ...body }, version });
  async function confirmed(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await postJson(`${gw()}${path}`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    let tx: Record<string, unknown> = {};
    for (const url of net.rpcUrls) tx = await waitConfirmed(url, r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    return tx;
  }

  before(async () => {
    net = await startTestDevnet({ validators: 2, cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'] });
    const key = net.validatorKey(0);
    operator = { keys: key.keys, publicKeyHex: toHex(key.keys.publicKey), address: key.file.address };
  });
  after(async () => {
    await net?.stop();
  });

  test('operator-only and v4-only at the gateway; a channel, a client and a proven packet; reads through the gateway', async () => {
    const alice = labelledWallet('it-ibc-alice');
    const faucet = await postJson(`${gw()}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
    assert.equal(faucet.status, 200, JSON.stringify(faucet.body));
    for (const url of net.rpcUrls) await waitConfirmed(url, faucet.body.tx_hash as string);

    const open = { channel: CH, port: 'transfer', counterparty_chain: B, allowed_denoms: ['ucoin', 'uatom'] };
    assert.equal((await postJson(`${gw()}/api/v1/ibc/channel/open`, op(alice, 'ibc_channel_open', open))).status, 403);
    assert.equal((await postJson(`${gw()}/api/v1/ibc/channel/open`, op(operator, 'ibc_channel_open', open, 'v2'))).status, 401);
    await confirmed('/api/v1/ibc/channel/open', op(operator, 'ibc_channel_open', open));
    const channels = await getJson(`${gw()}/api/v1/ibc/channels`);
    assert.equal(channels.status, 200, JSON.stringify(channels.body));
    assert.equal(channels.body.total, 1);

    const set = ibcSigners([10, 10, 10]);
    const fields = { sender: 'cosmos1sender', receiver: alice.address, denom: 'uatom', amount: 77, memo: '' };
    const value = commitmentValue(10_000, transferText({ ...fields, amount: 77n, channel: CH }));
    const h = await counterpartyHeader({ chainId: B, height: 10, validators: set, records: { [ibcCommitmentKey(CH, 1)]: value } });
    await confirmed('/api/v1/ibc/client/update', op(operator, 'ibc_client_update', { header: h.header }));
    const client = await getJson(`${gw()}/api/v1/ibc/client/${B}`);
    assert.equal(client.status, 200, JSON.stringify(client.body));
    assert.deepEqual(client.body.heights, [10]);
    assert.equal((await getJson(`${gw()}/api/v1/ibc/client/ibc-z`)).status, 404);

    const proof = (await h.prove(ibcCommitmentKey(CH, 1))).proof;
    const recv = { packet_id: `${B}/${CH}/1`, ...fields, timeout_height: 10_000, proof_height: 10, proof };
    // A proposer that skips admission cannot credit a forged amount.
    await failsInBlock(net, op(operator, 'ibc_recv', { ...recv, amount: 7_700 }), /proof does not prove/, 'ibc_recv');
    await confirmed('/api/v1/ibc/recv', op(operator, 'ibc_recv', recv));
    const held = await getJson(`${gw()}/api/v1/ibc/voucher/${alice.address}`);
    assert.equal(held.status, 200, JSON.stringify(held.body));
    assert.deepEqual((held.body.vouchers as Array<Record<string, unknown>>).map((v) => [v.denom, v.amount]), [[voucherDenom(`transfer/${CH}/uatom`), 77]]);
    assert.equal(((await getJson(`${gw()}/api/v1/ibc/denoms`)).body.denoms as unknown[]).length, 1);

    await confirmed('/api/v1/ibc/transfer', op(alice, 'ibc_transfer', { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom: 'ucoin', amount: 1234 }));
    assert.equal((await getJson(`${gw()}/api/v1/accounts/chain:ibc.escrow.${CH}`)).body.balance, 1234);
    const packets = await getJson(`${gw()}/api/v1/ibc/packets?direction=out`);
    assert.equal(packets.status, 200, JSON.stringify(packets.body));
    assert.deepEqual((packets.body.packets as Array<Record<string, unknown>>).map((p) => [p.status, p.amount, p.amount_human]), [['locked', 1234, '0.001234 COIN']]);
    await sameRootEverywhere(net);
  });
});
