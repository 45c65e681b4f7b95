import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { labelledWallet, signOperation, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock, sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { namePrice } from '../../plugins/names/public.js';

/**
 * Names and NFTs (issue 31, decisions.md §38–41) on a real 4-validator devnet, each step through
 * the RPC as a client would; `/test/inject` plays a proposer that skips admission.
 */
let clock = Date.now();

describe('names and NFTs on a real devnet', () => {
  let net: TestDevnet;
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const balanceOf = async (address: string, i = 0): Promise<bigint> => BigInt((await getJson(`${rpc(i)}/api/v1/accounts/${address}`)).body.balance as number);
  async function funded(label: string): Promise<Wallet> {
    const w = labelledWallet(label);
    const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    for (const url of net.rpcUrls) await waitConfirmed(url, f.body.tx_hash as string);
    return w;
  }
  /** Every validator applied it; it confirmed. */
  async function confirmed(hash: string): Promise<Record<string, unknown>> {
    let tx: Record<string, unknown> = {};
    for (const url of net.rpcUrls) tx = await waitConfirmed(url, hash);
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    return tx;
  }
  const op = (w: Wallet, kind: string, target: string, body: Record<string, unknown>, actor = w.address) => signOperation(w, { kind, actor, target, nonce: ++clock, body });
  const registerHuman = (w: Wallet, name: string) => op(w, 'register_human', 'chain:system.name', { name, owner: w.address });
  const giveNft = (w: Wallet, nft: string, to: string, from = w.address) => op(w, 'transfer_nft', nft, { nft_address: nft, from, to }, from);

  before(async () => {
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'] });
  });
  after(async () => {
    await net?.stop();
  });

  test('the price of every length 1 to 32 follows name_price_base; bad labels 400; Node only', async () => {
    const params = (await getJson(`${rpc()}/api/v1/governance/params`)).body.params as Record<string, { value: number }>;
    const base = BigInt(params.name_price_base!.value);
    assert.equal(base, 10_000_000n, 'the devnet keeps the default');
    for (let len = 1; len <= 32; len++) {
      const r = await getJson(`${rpc()}/api/v1/addresses/human/price?name=${'n'.repeat(len)}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(BigInt(r.body.price as number), namePrice(len, base), `length ${len}`);
      assert.deepEqual([r.body.length, r.body.available, r.body.address], [len, true, `chain:${'n'.repeat(len)}.human`]);
    }
    assert.equal((await getJson(`${rpc()}/api/v1/addresses/human/price?name=0123456789abcde`)).status, 400);
    assert.equal((await getJson(`${rpc()}/api/v1/addresses/human/price`)).status, 400);
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/addresses/human/price?name=abc`)).status, 404, 'Node only');
  });

  test('a name bought, taken, received at, moved with its fee and history; an agent registered and moved; refusals re-checked in the block', async () => {
    const alice = await funded('it-names-alice');
    const bob = await funded('it-names-bob');
    const carol = await funded('it-names-carol');
    const name = 'alice-it-name';
    const price = BigInt((await getJson(`${rpc()}/api/v1/addresses/human/price?name=${name}`)).body.price as number);
    const before = await balanceOf(alice.address);
    const burnedBefore = BigInt((await getJson(`${rpc()}/api/v1/gas/estimate`)).body.total_burned as number);
    const r = await postJson(`${rpc()}/api/v1/addresses/human`, registerHuman(alice, name));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const tx = await confirmed(r.body.tx_hash as string);
    assert.equal(await balanceOf(alice.address), before - price - BigInt(tx.fee as number), 'price + fee, exactly');
    const block = (await getJson(`${rpc()}/api/v1/blocks/${tx.block as number}`)).body;
    assert.ok(BigInt(block.fees_burned as number) >= price, 'the price is in the block\'s fees_burned');
    assert.ok(BigInt((await getJson(`${rpc()}/api/v1/gas/estimate`)).body.total_burned as number) - burnedBefore >= price);
    const nameAddr = `chain:${name}.human`;
    assert.equal((await getJson(`${rpc()}/api/v1/addresses/human/price?name=${name}`)).body.available, false);
    const acct = (await getJson(`${rpc(1)}/api/v1/accounts/${nameAddr}`)).body;
    assert.deepEqual([acct.address, acct.custom_address], [alice.address, nameAddr], 'the name answers its owner\'s account');

    // Taken: 409 at admission, nothing moved; in a block (admission skipped) it fails, fee only.
    const bobBefore = await balanceOf(bob.address);
    const taken = await postJson(`${rpc()}/api/v1/addresses/human`, registerHuman(bob, name));
    assert.equal(taken.status, 409, JSON.stringify(taken.body));
    assert.equal(await balanceOf(bob.address), bobBefore);
    const failed = await failsInBlock(net, registerHuman(bob, name), /already registered/, 'register_human');
    assert.equal(await balanceOf(bob.address), bobBefore - BigInt(failed.fee as number), 'fee consumed, no price');
    assert.equal((await postJson(`${rpc()}/api/v1/addresses/human`, registerHuman(bob, 'ab_c'))).status, 400);

    // A transfer to the name reaches its owner.
    const aliceBefore = await balanceOf(alice.address);
    await confirmed((await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(carol, { to: nameAddr, value: 4321, nonce: 1 }))).body.tx_hash as string);
    assert.equal(await balanceOf(alice.address, 2), aliceBefore + 4321n);
    assert.equal((await postJson(`${rpc()}/api/v1/transactions`, signTransfer(carol, { to: 'chain:never-registered.human', value: 1, nonce: 2 }))).status, 400);

    // Moved by nft/transfer: the exact fee, the history; the new owner receives; the old one is refused.
    const aliceBeforeMove = await balanceOf(alice.address);
    const moved = await postJson(`${net.gatewayUrl}/api/v1/nft/transfer`, giveNft(alice, nameAddr, bob.address));
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const movedTx = await confirmed(moved.body.tx_hash as string);
    const nftFee = BigInt((await getJson(`${rpc()}/api/v1/gas/estimate`)).body.nft_transfer_fee as number);
    assert.equal(nftFee, 100n);
    assert.equal(await balanceOf(alice.address), aliceBeforeMove - BigInt(movedTx.fee as number) - nftFee);
    const record = (await getJson(`${rpc(3)}/api/v1/nft/${nameAddr}`)).body;
    assert.equal(record.owner, bob.address);
    assert.deepEqual((record.history as Array<Record<string, unknown>>).map((h) => [h.type, h.from, h.to]), [['register', '', alice.address], ['transfer', alice.address, bob.address]]);
    const bobNow = await balanceOf(bob.address);
    await confirmed((await postJson(`${rpc()}/api/v1/transactions`, signTransfer(carol, { to: nameAddr, value: 999, nonce: 2 }))).body.tx_hash as string);
    assert.equal(await balanceOf(bob.address), bobNow + 999n);
    assert.equal((await postJson(`${rpc()}/api/v1/nft/transfer`, giveNft(alice, nameAddr, carol.address))).status, 403);
    assert.equal((await postJson(`${rpc()}/api/v1/nft/transfer`, giveNft(carol, nameAddr, carol.address, bob.address))).status, 401);
    await failsInBlock(net, giveNft(alice, nameAddr, carol.address), /does not own/, 'transfer_nft');
    const owned = (await getJson(`${net.gatewayUrl}/api/v1/nft/owner/${bob.address}`)).body;
    assert.deepEqual((owned.nfts as Array<{ address: string }>).map((n) => n.address), [nameAddr]);
    assert.equal((await getJson(`${rpc()}/api/v1/nft/chain:v0.node`)).status, 404);

    // An agent: registered through the gateway, read, moved.
    const agent = await postJson(`${net.gatewayUrl}/api/v1/agents/register`, op(carol, 'register_agent', 'chain:system.agent', { name: 'carol-bot', owner: carol.address }));
    assert.equal(agent.status, 200, JSON.stringify(agent.body));
    await confirmed(agent.body.tx_hash as string);
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/agents/chain:carol-bot.agent`)).body.kind, 'agent');
    assert.equal((await getJson(`${rpc()}/api/v1/agents/${nameAddr}`)).status, 404);
    await confirmed((await postJson(`${rpc()}/api/v1/nft/transfer`, giveNft(carol, 'chain:carol-bot.agent', alice.address))).body.tx_hash as string);
    assert.equal((await getJson(`${rpc(2)}/api/v1/agents/chain:carol-bot.agent`)).body.owner, alice.address);
    await sameRootEverywhere(net);
  });
});
