import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, signOperation, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock, sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { namePrice } from '../../plugins/names/public.js';
import { contractAddress, DEPLOY_ADDRESS } from '../../plugins/contracts/public.js';
import { templateBytecode } from '../../plugins/contracts/templates.js';
import { toHex } from '../../kernel/sdk.js';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { canonicalJson } from '../../kernel/codec/json.js';
import { sha3Hex0x } from '../../kernel/crypto/hash.js';
import { ONE_THIRD, trustFromGenesis, verifyProvenRead } from '../../kernel/light-client/index.js';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import { trustFromGenesis as sdkTrustFromGenesis, verifyProvenRead as sdkVerifyProvenRead } from '../../sdk/crypto.js';

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
    // Proven through the name (§84: one entry per state key read): the name's record, which names the owner, and the owner's account.
    const genesis = JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')) as GenesisDoc;
    const provenAcct = await until('the name in the proven state', async () => {
      const r = await getJson(`${rpc(2)}/api/v1/accounts/${nameAddr}?prove=true`);
      return r.status === 200 && r.body.address === alice.address ? r.body : undefined;
    });
    const nameEntries = (provenAcct.proof as { entries: Array<{ key: string; exists: boolean; value_hex: string }> }).entries;
    assert.deepEqual(nameEntries.map((e) => [e.key, e.exists]), [[`names/nft/${nameAddr}`, true], [`acct/${alice.address}`, true]]);
    assert.equal((JSON.parse(Buffer.from(nameEntries[0]!.value_hex, 'hex').toString('utf8')) as { owner: string }).owner, alice.address, 'the proven record names the account answered');
    verifyProvenRead(provenAcct, trustFromGenesis(genesis, sha3Hex0x(canonicalJson(genesis))), { kind: 'account', trustLevel: ONE_THIRD });
    // The browser module's checker, told no kind, knows it for an account read (its acct/ entry
    // follows the name's), so it holds the answer to the account rules: one missing a field is refused.
    const moduleTrust = sdkTrustFromGenesis(genesis, sha3Hex0x(canonicalJson(genesis)));
    sdkVerifyProvenRead(provenAcct, moduleTrust);
    const { nonce: _dropped, ...withoutNonce } = provenAcct;
    assert.throws(() => sdkVerifyProvenRead(withoutNonce, moduleTrust), /nonce/);

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

  test('an .app name: a token deployed, named, read, proven and dry-run called through its name; admission holds two pending prices; no payment to a system address', async () => {
    const dana = await funded('it-names-dana');
    const erin = await funded('it-names-erin');
    // The shipped token template, deployed by a plain transaction as part 1 describes.
    const data = JSON.stringify({ bytecode_hex: toHex(templateBytecode('token.wasm')), name: 'Dana token', init_args: { name: 'Dana', symbol: 'DNA', decimals: 0, total_supply: 5000 } });
    const deploy = await postJson(`${rpc()}/api/v1/transactions`, signTransfer(dana, { to: DEPLOY_ADDRESS, value: 0, nonce: 1, data, gas_limit: 200 }));
    assert.equal(deploy.status, 200, JSON.stringify(deploy.body));
    await confirmed(deploy.body.tx_hash as string);
    const token = contractAddress(dana.address, deploy.body.tx_hash as string);
    const APP = 'chain:dana-token.app';
    const registerApp = (w: Wallet, name: string, contract: string) =>
      op(w, 'register_app', 'chain:system.node', { name, owner: w.address, node_address: `chain:${name}.app`, contract });

    // Another's contract 403, an unknown one 404, nothing moved; the owner names it: price + fee.
    const erinBefore = await balanceOf(erin.address);
    assert.equal((await postJson(`${rpc()}/api/v1/nodes/register`, registerApp(erin, 'erin-steals', token))).status, 403);
    assert.equal((await postJson(`${rpc()}/api/v1/nodes/register`, registerApp(erin, 'erin-nothing', 'chain:0123456789.app'))).status, 404);
    assert.equal(await balanceOf(erin.address), erinBefore);
    const price = namePrice('dana-token'.length, 10_000_000n);
    const danaBefore = await balanceOf(dana.address);
    const named = await postJson(`${net.gatewayUrl}/api/v1/nodes/register`, registerApp(dana, 'dana-token', token));
    assert.equal(named.status, 200, JSON.stringify(named.body));
    const namedTx = await confirmed(named.body.tx_hash as string);
    assert.equal(await balanceOf(dana.address), danaBefore - price - BigInt(namedTx.fee as number), 'price + fee, exactly');
    assert.equal((await postJson(`${rpc()}/api/v1/nodes/register`, registerApp(dana, 'dana-again', token))).status, 409, 'one name per contract');
    assert.equal((await getJson(`${rpc()}/api/v1/nft/${APP}`)).status, 404, 'not an NFT');

    // Read and dry-run called through the name, on a node and through the gateway.
    for (const base of [rpc(1), net.gatewayUrl]) {
      const record = (await getJson(`${base}/api/v1/contracts/${APP}`)).body;
      assert.deepEqual([record.address, record.app_name, record.owner], [token, APP, dana.address]);
      const dry = await postJson(`${base}/api/v1/contracts/${APP}/call`, { function: 'balance_of', args: { address: dana.address }, dry_run: true });
      assert.equal(dry.status, 200, JSON.stringify(dry.body));
      assert.deepEqual([dry.body.success, dry.body.contract, JSON.parse(dry.body.return_data as string)], [true, token, { ok: '5000' }]);
    }
    assert.equal((await getJson(`${rpc()}/api/v1/contracts/${token}`)).body.app_name, APP);

    // Proven through the name (§84–85): the name's record and the contract's, checked against the genesis validators.
    const genesis = JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')) as GenesisDoc;
    const trust = trustFromGenesis(genesis, sha3Hex0x(canonicalJson(genesis)));
    // A proven read answers the state one block behind the head: wait until that state holds the name.
    const provenRead = await until('the name in the proven state', async () => {
      const r = await getJson(`${rpc(2)}/api/v1/contracts/${APP}?prove=true`);
      return r.status === 200 ? r.body : undefined;
    });
    const entries = (provenRead.proof as { entries: Array<{ key: string; exists: boolean }> }).entries;
    assert.deepEqual(entries.map((e) => [e.key, e.exists]), [[`names/app/${APP}`, true], [`contracts/contract/${token}`, true]]);
    verifyProvenRead(provenRead, trust, { kind: 'record', trustLevel: ONE_THIRD });

    // A plain transaction to the name calls the contract: tokens move.
    const call = await postJson(`${rpc()}/api/v1/transactions`, signTransfer(dana, { to: APP, value: 0, nonce: 2, data: JSON.stringify({ function: 'transfer', args: { to: erin.address, amount: 70 } }), gas_limit: 200 }));
    assert.equal(call.status, 200, JSON.stringify(call.body));
    await confirmed(call.body.tx_hash as string);
    const erinTokens = await postJson(`${rpc(3)}/api/v1/contracts/${token}/call`, { function: 'balance_of', args: { address: erin.address }, dry_run: true });
    assert.deepEqual(JSON.parse(erinTokens.body.return_data as string), { ok: '70' });

    // Admission holds (§38): a 6-letter name costs 40 COIN; one faucet credit (50 COIN) pays for one.
    // The second, sent while the first is pending, is refused at admission for what the first holds.
    // Two of the four validators are stopped (SIGSTOP) meanwhile, so no block can commit the first
    // in between: a proposal carrying it needs three precommits.
    const fay = await funded('it-names-fay');
    const fayBefore = await balanceOf(fay.address);
    const quorum = [net.nodes[2]!, net.nodes[3]!];
    let first: Awaited<ReturnType<typeof postJson>>;
    let second: Awaited<ReturnType<typeof postJson>>;
    for (const p of quorum) p.kill('SIGSTOP');
    try {
      first = await postJson(`${rpc()}/api/v1/addresses/human`, registerHuman(fay, 'fayone'));
      second = await postJson(`${rpc()}/api/v1/addresses/human`, registerHuman(fay, 'faytwo'));
    } finally {
      for (const p of quorum) p.kill('SIGCONT');
    }
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(second.status, 400, JSON.stringify(second.body));
    assert.match(second.body.error as string, /insufficient balance: .* reserved by pending transactions/);
    const firstTx = await confirmed(first.body.tx_hash as string);
    assert.equal(await balanceOf(fay.address), fayBefore - namePrice(6, 10_000_000n) - BigInt(firstTx.fee as number), 'only the first moved anything');
    assert.equal((await getJson(`${rpc()}/api/v1/addresses/human/price?name=faytwo`)).body.available, true);

    // A chain:system.* address names an operation and receives no payment.
    const erinNow = await balanceOf(erin.address);
    const toSystem = await postJson(`${rpc()}/api/v1/transactions`, signTransfer(erin, { to: 'chain:system.nothing-here', value: 5, nonce: 1 }));
    assert.equal(toSystem.status, 400, JSON.stringify(toSystem.body));
    assert.equal(await balanceOf(erin.address), erinNow);
    await sameRootEverywhere(net);
  });
});
