import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { labelledWallet, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { freePort, startGatewayProcess, type ProcessHandle } from '../../plugins/gateway/testing/process.js';
import { contractAddress } from '../../plugins/contracts/public.js';
import { leastValueScoring, loadModel } from '../../plugins/sentinel/model.js';
import { holdParamsOf } from '../../clients/mcp/held.js';

/**
 * Issue 34 end to end: a real 4-validator devnet and its gateway; the tool server started as a
 * desktop assistant starts it (`node dist/cli/main.js mcp`, the MCP SDK's own client over stdio,
 * a config file written by `chain mcp export-config`, a working directory outside the checkout);
 * session keys generated with `chain keys generate` and granted with `chain op grant_session`.
 * The sentinel's policy layer is on from genesis with a short hold and expiry, and session-key
 * transfers need the owner from 0.70 (the step-up threshold) rather than from the hold threshold,
 * so one chain shows both endings of a hold.
 */
const run = promisify(execFile);
const CLI = resolve('dist/cli/main.js');
const HOLD_BLOCKS = 4;
// Wide enough that the owner's confirm, a CLI process started after the automatic delay, lands before it on a busy machine.
const EXPIRY_BLOCKS = 40;
const CAP = 1_000_000; // 1 COIN
const model = loadModel();

interface ToolAnswer {
  readonly content: Array<{ type: string; text: string }>;
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

describe('the assistant tool server on a real devnet', () => {
  let net: TestDevnet;
  let work: string;
  const clients: Client[] = [];
  const gw = (path: string): string => `${net.gatewayUrl}${path}`;
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const balanceOf = async (address: string, i = 0): Promise<number> => (await getJson(`${rpc(i)}/api/v1/accounts/${address}`)).body.balance as number;
  const text = (a: ToolAnswer): string => a.content.map((c) => c.text).join('');
  const call = async (c: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> => (await c.callTool({ name, arguments: args })) as unknown as ToolAnswer;
  const ok = async (c: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const a = await call(c, name, args);
    assert.notEqual(a.isError, true, `${name}: ${text(a)}`);
    assert.equal(text(a), JSON.stringify(a.structuredContent), 'the text is the compact JSON of structuredContent');
    return a.structuredContent!;
  };
  const chain = async (...args: string[]): Promise<Record<string, unknown>> => JSON.parse((await run(process.execPath, [CLI, ...args], { cwd: work })).stdout) as Record<string, unknown>;
  /** Every transaction this file sends is meant to apply: one that failed fails here, with its receipt (its error) in the message. */
  const confirmedEverywhere = async (hash: string): Promise<Record<string, unknown>> => {
    let tx: Record<string, unknown> = {};
    for (const [i, url] of net.rpcUrls.entries()) {
      tx = await waitConfirmed(url, hash);
      assert.equal(tx.status, 'confirmed', `validator ${i}: ${JSON.stringify(tx)}`);
    }
    return tx;
  };
  const height = async (): Promise<number> => (await getJson(`${rpc()}/health`)).body.height as number;

  /** The tool server as a desktop assistant starts it: `node <checkout>/dist/cli/main.js mcp`, CHAIN_MCP_CONFIG in its environment, cwd elsewhere. */
  async function assistant(configFile: string): Promise<Client> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env: { ...getDefaultEnvironment(), CHAIN_MCP_CONFIG: configFile }, cwd: work, stderr: 'pipe' });
    const client = new Client({ name: 'it-assistant', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** A funded account with its main key file, and a session key (chain keys generate) it granted on chain (chain op grant_session). */
  async function grantedAccount(label: string, scope: string[] | '*', cap: number): Promise<{ owner: Wallet; ownerKey: string; sessionKey: string; config: string }> {
    const owner = labelledWallet(label);
    const ownerKey = join(work, `${label}-owner.json`);
    writeKeyFile(ownerKey, makeKeyFile(nobleProvider, sha3(label)).file);
    const f = await postJson(gw('/api/v1/faucet'), { address: owner.address, public_key: owner.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    await confirmedEverywhere(f.body.tx_hash as string);
    const sessionKey = join(work, `${label}-session.json`);
    await chain('keys', 'generate', '--random-seed', '--out', sessionKey);
    await grant(ownerKey, sessionKey, scope, cap);
    const config = join(work, `${label}-mcp.json`);
    const exported = await chain('mcp', 'export-config', '--key', sessionKey, '--account', owner.address, '--gateway', net.gatewayUrl, '--out', config);
    assert.equal(exported.config_file, config);
    assert.deepEqual(exported.scope, scope, 'scope is filled from the grant on chain');
    assert.equal((statSync(config).mode & 0o777).toString(8), '600');
    return { owner, ownerKey, sessionKey, config };
  }

  async function grant(ownerKey: string, sessionKey: string, scope: string[] | '*', cap: number): Promise<void> {
    const pk = (JSON.parse(readFileSync(sessionKey, 'utf8')) as { public_key: string }).public_key;
    const answer = await chain('op', 'grant_session', '--key', ownerKey, '--rpc', rpc(), '--body', JSON.stringify({ session_pk: pk, scope, cap, expiry_block: (await height()) + 100_000 }));
    await confirmedEverywhere(answer.tx_hash as string);
  }

  const grantOf = async (account: string): Promise<Record<string, unknown>> => ((await getJson(gw(`/api/v1/session/list/${account}`))).body.grants as Array<Record<string, unknown>>)[0]!;
  const proxiedTransactions = async (): Promise<number> => {
    const metrics = await (await fetch(gw('/metrics'))).text();
    return [...metrics.matchAll(/^gateway_proxied_requests_total\{route="\/api\/v1\/transactions",status="\d+"\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };

  let main: Awaited<ReturnType<typeof grantedAccount>>;
  let agent: Client;
  let token = '';
  const bob = labelledWallet('mcp-it-bob');
  const carol = labelledWallet('mcp-it-carol');

  before(async () => {
    net = await startTestDevnet({
      genesisParams: { sentinel_policy_enabled: '1', sentinel_hold_blocks: String(HOLD_BLOCKS), sentinel_confirm_expiry_blocks: String(EXPIRY_BLOCKS), sentinel_agent_confirm_threshold: '70' },
    });
    work = tempDir('mcp-assistant-');
    main = await grantedAccount('mcp-it-alice', [bob.address, 'chain:system.deploy'], CAP);
    agent = await assistant(main.config);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await net?.stop();
  });

  test('tools/list: the twelve tools with their schemas, the server declaring tools only', async () => {
    assert.equal(agent.getServerVersion()?.name, 'pq-chain');
    assert.deepEqual(Object.keys(agent.getServerCapabilities() ?? {}), ['tools']);
    const { tools } = await agent.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['ch_analyze_contract', 'ch_call_contract', 'ch_deploy', 'ch_gas_estimate', 'ch_get_account', 'ch_get_contract', 'ch_get_held', 'ch_get_session_grants', 'ch_get_txs', 'ch_list_proposals', 'ch_list_validators', 'ch_transfer']);
    const limit = (name: string) => (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Record<string, unknown>>).limit!;
    assert.deepEqual([limit('ch_get_txs').minimum, limit('ch_get_txs').maximum], [1, 200]);
    assert.deepEqual([limit('ch_list_proposals').minimum, limit('ch_list_proposals').maximum], [1, 100]);
    for (const t of tools) assert.equal((t.inputSchema as { additionalProperties?: boolean }).additionalProperties, false);
  });

  test('read-only: each write is refused and nothing is sent', async () => {
    const config = join(work, 'read-only.json');
    writeFileSync(config, JSON.stringify({ node_rpc: net.gatewayUrl, account: main.owner.address, session_pk: '', sk_seed_hex: '', scope: '*' }));
    const reader = await assistant(config);
    const before = { account: (await getJson(gw(`/api/v1/accounts/${main.owner.address}`))).body, proxied: await proxiedTransactions() };
    for (const [name, args] of [
      ['ch_transfer', { to: bob.address, amount_nro: '0.5' }],
      ['ch_call_contract', { to: 'chain:0123456789.app', function: 'transfer', args: {} }],
      ['ch_deploy', { template: 'fungible-token' }],
    ] as const) {
      const a = await call(reader, name, args);
      assert.equal(a.isError, true);
      assert.equal(text(a), `${name} needs a session key: CHAIN_MCP_CONFIG has no session_pk and sk_seed_hex (read-only)`);
    }
    assert.equal(await proxiedTransactions(), before.proxied, 'no transaction reached the gateway');
    const after = (await getJson(gw(`/api/v1/accounts/${main.owner.address}`))).body;
    assert.deepEqual([after.next_nonce, after.balance], [before.account.next_nonce, before.account.balance]);
    assert.equal((await ok(reader, 'ch_get_account')).address, main.owner.address, 'reads still work');
  });

  test('ch_transfer of "0.123457" moves exactly 123 457 ucoin plus the fee, and the grant\'s spent rises by that value', async () => {
    const [aliceBefore, bobBefore, proxiedBefore] = [await balanceOf(main.owner.address), await balanceOf(bob.address), await proxiedTransactions()];
    const r = await ok(agent, 'ch_transfer', { to: bob.address, amount_nro: '0.123457' });
    // The counter the read-only test reads does count a write: one POST, no retry.
    assert.equal(await proxiedTransactions(), proxiedBefore + 1);
    assert.deepEqual([r.status, r.from, r.to, r.value, r.value_human, r.held], ['pending', main.owner.address, bob.address, 123_457, '0.123457 COIN', null]);
    const tx = await confirmedEverywhere(r.tx_hash as string);
    for (let i = 0; i < net.rpcUrls.length; i++) {
      assert.equal((await balanceOf(bob.address, i)) - bobBefore, 123_457);
      assert.equal(aliceBefore - (await balanceOf(main.owner.address, i)), 123_457 + (tx.fee as number));
    }
    assert.equal((await grantOf(main.owner.address)).spent, 123_457);
  });

  test('beyond the cap the text carries 401 and the spend-cap message, and nothing moved', async () => {
    const [aliceBefore, bobBefore] = [await balanceOf(main.owner.address), await balanceOf(bob.address)];
    const a = await call(agent, 'ch_transfer', { to: bob.address, amount_nro: 0.9 });
    assert.equal(a.isError, true);
    assert.match(text(a), /^POST \/api\/v1\/transactions → 401 session spend cap exceeded: 123457 of 1000000 ucoin spent, 900000 more asked/);
    assert.deepEqual([await balanceOf(main.owner.address), await balanceOf(bob.address)], [aliceBefore, bobBefore]);
    assert.equal((await grantOf(main.owner.address)).spent, 123_457);
  });

  test('a recipient outside the grant\'s scope is refused with 401', async () => {
    const a = await call(agent, 'ch_transfer', { to: carol.address, amount_nro: '0.01' });
    assert.equal(a.isError, true);
    assert.match(text(a), new RegExp(`^POST /api/v1/transactions → 401 session key scope does not include ${carol.address.replace(/\./g, '\\.')}`));
    assert.equal(await balanceOf(carol.address), 0);
  });

  test('ch_deploy of the token template lands at the decisions.md §27 address; ch_call_contract moves tokens and attaches value', async () => {
    const d = await ok(agent, 'ch_deploy', { template: 'fungible-token', name: 'Agent token', init_args: { name: 'Agent', symbol: 'AGT', decimals: 6, total_supply: 1000 } });
    token = d.contract_address as string;
    assert.equal(token, contractAddress(main.owner.address, d.tx_hash as string));
    await confirmedEverywhere(d.tx_hash as string);
    const record = await ok(agent, 'ch_get_contract', { address: token });
    assert.deepEqual([record.address, record.owner, record.template], [token, main.owner.address, 'fungible-token']);
    // The grant names its destinations: widen it to the new contract (a new grant of the key starts spent at 0).
    await grant(main.ownerKey, main.sessionKey, [bob.address, 'chain:system.deploy', token], CAP);
    const c = await ok(agent, 'ch_call_contract', { to: token, function: 'transfer', args: { to: bob.address, amount: '2.5' }, value: 1000 });
    await confirmedEverywhere(c.tx_hash as string);
    const dry = await postJson(gw(`/api/v1/contracts/${token}/call`), { function: 'balance_of', args: { address: bob.address }, dry_run: true });
    assert.equal(dry.body.return_data, '{"ok":"2500000"}');
    for (let i = 0; i < net.rpcUrls.length; i++) assert.equal(await balanceOf(token, i), 1000, 'the value was credited to the contract');
    assert.equal((await grantOf(main.owner.address)).spent, 1000);
  });

  test('with the policy layer on, a held transfer is reported as releasing automatically or needing the owner, and the chain does what was reported', async () => {
    // The least value that scores 0.65 (automatic: below 0.70) and 0.76 (the owner must confirm)
    // for a first transfer to a new recipient, from the model and the account's state alone.
    const valueScoring = async (w: Wallet, bp: bigint): Promise<number> =>
      Number(leastValueScoring(model, bp, { gas_price: 1n, nonce: 1n, last_nonce: 0n, balance: BigInt(await balanceOf(w.address)), tx_count_last_10: 0n, recipient_tx_count: 0n, is_self_transfer: false }));
    const coin = (ucoin: number): string => (ucoin / 1e6).toFixed(6);

    // Where the node's held details do not say how a hold ends, the tool reads these (§81): the real answer's shape.
    assert.deepEqual(holdParamsOf((await getJson(gw('/api/v1/governance/params'))).body), { stepup: 70, agent: 70, holdBlocks: HOLD_BLOCKS, expiryBlocks: EXPIRY_BLOCKS });
    const h = await grantedAccount('mcp-it-hana', '*', 50_000_000);
    const hana = await assistant(h.config);
    const toAuto = labelledWallet('mcp-it-hana-to').address;
    const v1 = await valueScoring(h.owner, 6_500n);
    const auto = await ok(hana, 'ch_transfer', { to: toAuto, amount_nro: coin(v1) });
    const held1 = auto.held as Record<string, unknown>;
    assert.deepEqual([held1.releases, held1.needs_owner, held1.release_after_blocks], ['automatic', false, HOLD_BLOCKS], JSON.stringify(held1));
    assert.ok((held1.score as number) >= 0.6 && (held1.score as number) < 0.7, String(held1.score));
    assert.equal(held1.message, `held by the policy layer: released to ${toAuto} automatically after ${HOLD_BLOCKS} blocks unless the owner cancels it`);
    const tx1 = await confirmedEverywhere(auto.tx_hash as string);
    const listed = (await ok(hana, 'ch_get_held')).held as Array<Record<string, unknown>>;
    assert.deepEqual([listed[0]!.tx_hash, listed[0]!.releases, listed[0]!.release_height], [auto.tx_hash, 'automatic', (tx1.block as number) + HOLD_BLOCKS]);
    for (let i = 0; i < net.rpcUrls.length; i++) await until(`release on validator ${i}`, async () => ((await balanceOf(toAuto, i)) === v1 ? true : undefined));

    const o = await grantedAccount('mcp-it-olga', '*', 50_000_000);
    const olga = await assistant(o.config);
    const toOwner = labelledWallet('mcp-it-olga-to').address;
    const v2 = await valueScoring(o.owner, 7_600n);
    const stepped = await ok(olga, 'ch_transfer', { to: toOwner, amount_nro: coin(v2) });
    const held2 = stepped.held as Record<string, unknown>;
    assert.deepEqual([held2.releases, held2.needs_owner, held2.refund_after_blocks], ['owner_confirmation', true, EXPIRY_BLOCKS], JSON.stringify(held2));
    assert.match(held2.message as string, new RegExp(`the owner must confirm it with the account's main key \\(POST /api/v1/transactions/${stepped.tx_hash as string}/confirm\\) within ${EXPIRY_BLOCKS} blocks`));
    const tx2 = await confirmedEverywhere(stepped.tx_hash as string);
    // It does not release on its own: past the automatic delay it is still held.
    await until('the automatic delay to pass', async () => ((await height()) > (tx2.block as number) + HOLD_BLOCKS + 1 ? true : undefined));
    assert.equal(await balanceOf(toOwner), 0);
    assert.equal(((await ok(olga, 'ch_get_held')).held as Array<Record<string, unknown>>)[0]!.status, 'held');
    // The owner confirms with the account's main key (chain op, ch-tx-v4 naming the hash); then it is paid.
    const confirmed = await chain('op', 'held_confirm', '--key', o.ownerKey, '--rpc', rpc(), '--body', JSON.stringify({ hash: stepped.tx_hash }));
    await confirmedEverywhere(confirmed.tx_hash as string);
    for (let i = 0; i < net.rpcUrls.length; i++) assert.equal(await balanceOf(toOwner, i), v2);
  });

  test('every reading tool answers what the gateway answers for the same read', async () => {
    const a = main.owner.address;
    // The whole template: the devnet runs the analyzer, so the audit answers an analysis (200), not a refusal of a fragment.
    const tokenCode = (await getJson(gw('/api/v1/templates/fungible-token'))).body.bytecode_hex as string;
    const reads: Array<[string, Record<string, unknown>, 'GET' | 'POST', string, unknown?]> = [
      ['ch_get_account', {}, 'GET', `/api/v1/accounts/${a}`],
      ['ch_get_txs', { limit: 5 }, 'GET', `/api/v1/transactions?${new URLSearchParams({ address: a, limit: '5', offset: '0' })}`],
      ['ch_gas_estimate', {}, 'GET', '/api/v1/gas/estimate'],
      ['ch_list_proposals', { status: 'active' }, 'GET', '/api/v1/governance/proposals?status=active&limit=20&offset=0'],
      ['ch_list_validators', {}, 'GET', '/api/v1/validators'],
      ['ch_get_contract', { address: token }, 'GET', `/api/v1/contracts/${token}`],
      ['ch_analyze_contract', { bytecode_hex: tokenCode }, 'POST', '/api/v1/contracts/audit', { bytecode_hex: tokenCode }],
      ['ch_get_session_grants', { address: a }, 'GET', `/api/v1/session/list/${a}`],
      ['ch_get_held', { address: labelledWallet('mcp-it-hana').address }, 'GET', `/api/v1/held/${labelledWallet('mcp-it-hana').address}`],
    ];
    const statuses = new Map<string, number>();
    for (const [tool, args, method, path, body] of reads) {
      // The chain moves between the two reads: equal once both read the same height.
      await until(`${tool} to answer as ${method} ${path}`, async () => {
        const t = await call(agent, tool, args);
        const g = method === 'GET' ? await getJson(gw(path)) : await postJson(gw(path), body);
        statuses.set(tool, g.status);
        if (g.status !== 200) return t.isError === true && text(t) === `${method} ${path} → ${g.status} ${g.body.error as string}` ? true : undefined;
        return t.isError !== true && isDeepStrictEqual(t.structuredContent, g.body) ? true : undefined;
      });
    }
    // Every read above is one the gateway serves: each compared a real answer, not two equal refusals.
    assert.deepEqual([...statuses].filter(([, status]) => status !== 200), []);
  });

  test('a stopped gateway gives an error naming its URL, and the next call is answered', async () => {
    const port = await freePort();
    const start = (): Promise<ProcessHandle> => startGatewayProcess({ NODE_RPC_URL: rpc(), PORT: String(port), NETWORK_ID: 'mcp-it' });
    let second = await start();
    const config = join(work, 'second-gateway.json');
    writeFileSync(config, JSON.stringify({ node_rpc: second.url, account: main.owner.address }));
    const c = await assistant(config);
    assert.equal(typeof (await ok(c, 'ch_gas_estimate')).base_fee, 'number');
    await second.stop();
    const down = await call(c, 'ch_gas_estimate');
    assert.equal(down.isError, true);
    assert.match(text(down), new RegExp(`^GET /api/v1/gas/estimate → gateway unreachable at http://127\\.0\\.0\\.1:${port}: `));
    assert.match(text(await call(c, 'ch_get_account')), /gateway unreachable at/, 'the server keeps answering');
    second = await start();
    try {
      assert.equal((await ok(c, 'ch_get_account')).address, main.owner.address);
    } finally {
      await second.stop();
    }
  });

  test('every validator ends with the same state root', async () => {
    await sameRootEverywhere(net);
  });
});
