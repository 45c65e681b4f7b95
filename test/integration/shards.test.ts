import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startTestDevnet, sameRootEverywhere, type TestDevnet } from '../helpers/devnet.js';
import { getJson, postJson, waitConfirmed } from '../helpers/node-process.js';
import { signOperation, signTransfer, walletOnShard } from '../helpers/chain-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';
import { shardOf } from '../../kernel/crypto/fnv.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { toHex } from '../../kernel/codec/hex.js';
import { contractAddress } from '../../plugins/contracts/public.js';
import type { GenesisDoc } from '../../kernel/config/genesis.js';

/*
 * A 2 × 2 sharded devnet (decisions.md §71–§73, §77) driven as a client would: each shard is its
 * own chain with its own validators, a node takes senders of its own shard only and reads of its
 * own addresses only, and the gateway routes by owner. One devnet for every scenario of the file.
 */
let net: TestDevnet;
const shardNodes = (s: number): string[] => net.rpcUrls.filter((_, k) => Math.floor(k / 2) === s);
const a0 = walletOnShard(0, 2);
const b0 = walletOnShard(0, 2, 1);
const a1 = walletOnShard(1, 2);

before(async () => {
  net = await startTestDevnet({ shards: 2, validators: 2 });
});
after(async () => {
  await net?.stop();
});

test('four validators, two per shard, from one genesis: /health names the shard; each shard decides with its own set', async () => {
  const genesis = JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')) as GenesisDoc;
  assert.equal(genesis.n_shards, 2);
  for (const [k, url] of net.rpcUrls.entries()) {
    const shard = Math.floor(k / 2);
    const key = JSON.parse(readFileSync(join(net.dir, 'keys', `validator-${k}.json`), 'utf8')) as { node_address: string; address: string; shard: number };
    assert.equal(key.shard, shard);
    assert.equal(shardOf(key.node_address, 2), shard, `${key.node_address} belongs to its shard`);
    assert.equal(shardOf(key.address, 2), shard, 'and so does its owner');
    assert.equal(genesis.validators.find((v) => v.address === key.node_address)?.shard, shard);
    const h = (await getJson(`${url}/health`)).body;
    assert.equal(h.shard, shard);
    assert.equal(h.n_shards, 2);
    assert.equal(h.validator_count, 2, 'the active set is the shard\'s own two validators');
    const commit = (await getJson(`${url}/api/v1/blocks/1/commit`)).body;
    const own = genesis.validators.filter((v) => v.shard === shard).map((v) => v.address).sort();
    assert.deepEqual((commit.validators as Array<{ address: string }>).map((v) => v.address), own);
    assert.equal((commit.header as { shard: number }).shard, shard);
  }
  for (const s of [0, 1]) await sameRootEverywhere({ rpcUrls: shardNodes(s) });
  const roots = await Promise.all([0, 1].map(async (s) => (await getJson(`${shardNodes(s)[0]}/api/v1/blocks/1`)).body.state_root));
  assert.notEqual(roots[0], roots[1], 'each shard has its own state');
});

test('accounts on both shards through the gateway, and an unchanged intra-shard transfer', async () => {
  for (const w of [a0, a1]) {
    const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex, amount: 1_000_000 });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    const shard = shardOf(w.address, 2);
    // Both validators of the shard have applied it before the second is read.
    for (const url of shardNodes(shard)) assert.equal((await waitConfirmed(url, f.body.tx_hash as string)).status, 'confirmed');
    const acct = (await getJson(`${shardNodes(shard)[1]!}/api/v1/accounts/${w.address}`)).body;
    assert.equal(acct.balance, 1_000_000);
    assert.equal(acct.shard, shard);
  }
  const t = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(a0, { to: b0.address, value: 1000, nonce: 1 }));
  assert.equal(t.status, 200, JSON.stringify(t.body));
  const tx = await waitConfirmed(shardNodes(0)[0]!, t.body.tx_hash as string);
  assert.equal(tx.status, 'confirmed');
  assert.equal(tx.shard, 0);
  await waitConfirmed(shardNodes(0)[1]!, t.body.tx_hash as string);
  assert.equal((await getJson(`${shardNodes(0)[1]!}/api/v1/accounts/${b0.address}`)).body.balance, 1000);
  assert.equal((await getJson(`${shardNodes(1)[0]!}/api/v1/transactions/${t.body.tx_hash}`)).status, 404, 'shard 1 never saw it');
});

test('a sender of another shard is refused 400 with shard, and nothing moves; a foreign read is 404 with shard', async () => {
  const node0 = shardNodes(0)[0]!;
  const before = (await getJson(`${shardNodes(1)[0]!}/api/v1/accounts/${a1.address}`)).body.balance;
  const r = await postJson(`${node0}/api/v1/transactions`, signTransfer(a1, { to: b0.address, value: 5, nonce: 1 }));
  assert.equal(r.status, 400);
  assert.equal(r.body.shard, 1);
  assert.match(r.body.error as string, /belongs to shard 1; this node serves shard 0/);
  const faucet = await postJson(`${node0}/api/v1/faucet`, { address: a1.address, public_key: a1.publicKeyHex });
  assert.equal(faucet.status, 400);
  assert.equal(faucet.body.shard, 1);
  for (const path of [`/api/v1/accounts/${a1.address}`, `/api/v1/accounts/${a1.address}/transactions`, `/api/v1/staking/info/${a1.address}`]) {
    const read = await getJson(`${node0}${path}`);
    assert.equal(read.status, 404, path);
    assert.equal(read.body.shard, 1, path);
  }
  assert.equal((await getJson(`${shardNodes(1)[0]!}/api/v1/accounts/${a1.address}`)).body.balance, before, 'nothing moved');
  const viaGateway = await getJson(`${net.gatewayUrl}/api/v1/accounts/${a1.address}`);
  assert.equal(viaGateway.status, 200, 'the gateway reads it from its shard');
  assert.equal(viaGateway.body.shard, 1);
});

test('the assistant tool server on a sharded network: ch_deploy reports the address the chain gives, on the deployer\'s shard (decisions.md §27, §71)', async () => {
  const owner = walletOnShard(1, 2, 1);
  const home = shardNodes(1);
  const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: owner.address, public_key: owner.publicKeyHex });
  assert.equal(f.status, 200, JSON.stringify(f.body));
  for (const url of home) await waitConfirmed(url, f.body.tx_hash as string);
  // A session key granted on chain by the owner's main key, through the gateway (routed by actor to shard 1).
  const seed = sha3('shards-mcp-session');
  const sessionPk = toHex(nobleProvider.keygen(seed).publicKey);
  const height = (await getJson(`${home[0]!}/health`)).body.height as number;
  const grant = await postJson(
    `${net.gatewayUrl}/api/v1/session/grant`,
    signOperation(owner, { kind: 'grant_session', actor: owner.address, target: 'chain:system.session', nonce: Date.now(), body: { account: owner.address, session_pk: sessionPk, scope: '*', cap: 1_000_000, expiry_block: height + 100_000 } }),
  );
  assert.equal(grant.status, 200, JSON.stringify(grant.body));
  for (const url of home) await waitConfirmed(url, grant.body.tx_hash as string);
  // The tool server as an assistant starts it, pointed at the gateway of the sharded network.
  const work = tempDir('shards-mcp-');
  const config = join(work, 'mcp.json');
  writeFileSync(config, JSON.stringify({ node_rpc: net.gatewayUrl, account: owner.address, session_pk: sessionPk, sk_seed_hex: toHex(seed), scope: '*' }), { mode: 0o600 });
  const client = new Client({ name: 'shards-it', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [resolve('dist/cli/main.js'), 'mcp'], env: { ...getDefaultEnvironment(), CHAIN_MCP_CONFIG: config }, cwd: work, stderr: 'pipe' }));
  try {
    // Half of all deploys keep §27's address (shard 1 owns it); the others move by the k-rule. Deploy until one
    // has moved (each try moves with probability 1/2: 20 tries all stay with probability 2^-20), checking every reported address against the chain's record.
    let moved = 0;
    for (let i = 0; i < 20 && moved === 0; i++) {
      const a = (await client.callTool({ name: 'ch_deploy', arguments: { template: 'fungible-token', name: `sharded ${i}` } })) as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Record<string, unknown> };
      assert.notEqual(a.isError, true, a.content.map((c) => c.text).join(''));
      const r = a.structuredContent!;
      for (const url of home) assert.equal((await waitConfirmed(url, r.tx_hash as string)).status, 'confirmed');
      const address = r.contract_address as string;
      assert.equal(shardOf(address, 2), 1, `${address} is on the deployer's shard`);
      const record = await getJson(`${net.gatewayUrl}/api/v1/contracts/${address}`);
      assert.equal(record.status, 200, `the chain has a contract at the reported ${address}: ${JSON.stringify(record.body)}`);
      assert.deepEqual([record.body.address, record.body.owner, record.body.deploy_tx], [address, owner.address, r.tx_hash]);
      const viaTool = (await client.callTool({ name: 'ch_get_contract', arguments: { address } })) as { structuredContent?: Record<string, unknown> };
      assert.equal(viaTool.structuredContent?.address, address, 'ch_get_contract reads it through the gateway, routed by address');
      if (address !== contractAddress(owner.address, r.tx_hash as string)) moved++;
    }
    assert.equal(moved, 1, 'a deploy whose §27 address belongs to shard 0 was seen, and reported where the chain put it');
  } finally {
    await client.close();
  }
});

test('the gateway routes as §73/§77 say: ?shard=, /state/root with global_root, lookups asked of every shard, the dry run on the contract\'s shard; the relayer runs', async () => {
  const gw = net.gatewayUrl;
  const pid = Number(readFileSync(join(net.dir, 'relay.pid'), 'utf8'));
  assert.ok(net.relay !== null && net.relay.pid === pid && net.relay.exitCode === null, 'one chain relay-shards, its pid in relay.pid, running');
  for (const bad of ['2', 'x', '-1']) assert.equal((await getJson(`${gw}/api/v1/blocks?shard=${bad}`)).status, 400, `?shard=${bad}`);
  const commit1 = (await getJson(`${gw}/api/v1/blocks/1/commit?shard=1`)).body;
  assert.equal((commit1.header as { shard: number }).shard, 1);
  assert.equal(((await getJson(`${gw}/api/v1/blocks/1/commit`)).body.header as { shard: number }).shard, 0, 'default shard 0');
  // /health takes ?shard= too (§73): the record of a node of that shard, asked now.
  for (const shard of [0, 1]) {
    const h = await getJson(`${gw}/health?shard=${shard}`);
    assert.equal(h.status, 200, JSON.stringify(h.body));
    assert.deepEqual([h.body.shard, h.body.n_shards, h.body.node_reachable], [shard, 2, true]);
    const own = (await getJson(`${shardNodes(shard)[0]!}/health`)).body;
    assert.ok(Math.abs((h.body.height as number) - (own.height as number)) <= 3, `shard ${shard}'s height through the gateway ${String(h.body.height)}, its node ${String(own.height)}`);
  }
  for (const bad of ['2', '', 'x']) assert.equal((await getJson(`${gw}/health?shard=${bad}`)).status, 400, `/health?shard=${bad}`);
  // A node fills its own entry of /state/root; the gateway every shard's, and the global root over them.
  const own = (await getJson(`${shardNodes(1)[0]!}/api/v1/state/root`)).body;
  assert.equal((own.shard_roots as unknown[])[0], null);
  assert.match((own.shard_roots as string[])[1]!, /^0x[0-9a-f]{64}$/);
  const root = (await getJson(`${gw}/api/v1/state/root`)).body;
  const roots = root.shard_roots as string[];
  const heights = root.shard_heights as number[];
  assert.equal(root.n_shards, 2);
  assert.ok(roots.every((r) => /^0x[0-9a-f]{64}$/.test(r)) && heights.every((h) => h >= 1));
  assert.equal(root.height, Math.min(...heights));
  assert.equal(root.global_root, '0x' + toHex(sha3(`ch-global-root-v1|2|${heights[0]}|${roots[0]}|${heights[1]}|${roots[1]}`)));
  // A transaction of shard 1, found through the gateway without saying where.
  const w = walletOnShard(1, 2, 3);
  const f = await postJson(`${gw}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
  assert.equal(f.status, 200, JSON.stringify(f.body));
  await waitConfirmed(shardNodes(1)[0]!, f.body.tx_hash as string);
  const tx = await getJson(`${gw}/api/v1/transactions/${f.body.tx_hash}`);
  assert.equal(tx.status, 200);
  assert.equal(tx.body.shard, 1);
  assert.equal((await getJson(`${gw}/api/v1/transactions/0x${'00'.repeat(32)}`)).status, 404);
  // The contracts the assistant deployed on shard 1 (above): a dry run through the gateway reaches their shard.
  const listed = (await getJson(`${gw}/api/v1/contracts?shard=1`)).body.contracts as Array<{ address: string }>;
  assert.ok(listed.length > 0, 'contracts on shard 1');
  const call = await postJson(`${gw}/api/v1/contracts/${listed[0]!.address}/call`, { function: 'name', args: {}, dry_run: true });
  assert.equal(call.status, 200, JSON.stringify(call.body));
  const noLock = await postJson(`${gw}/api/v1/cross-shard/commit`, { proof: {} });
  assert.equal(noLock.status, 400);
  assert.match(noLock.body.error as string, /lock\.dest_shard/);
});
