import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { deriveAddress } from '../../kernel/crypto/address.js';
import { toHex } from '../../kernel/codec/hex.js';
import { shardOf } from '../../kernel/crypto/fnv.js';
import { contractAddressOn, shardView } from '../../kernel/sdk.js';
import { contractAddress } from '../../plugins/contracts/public.js';
import { parseMcpConfig, type McpConfig } from './config.js';
import { createToolServer } from './server.js';
import { FakeGateway } from './testing/fake-gateway.js';

const seed = new Uint8Array(32).fill(31);
const ACCOUNT = deriveAddress(nobleProvider.keygen(new Uint8Array(32).fill(32)).publicKey);
const BOB = deriveAddress(nobleProvider.keygen(new Uint8Array(32).fill(33)).publicKey);
const TX = `0x${'ab'.repeat(32)}`;

interface ToolAnswer {
  readonly content: Array<{ type: string; text: string }>;
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

async function connect(config: McpConfig): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createToolServer(config, '0.0.0-test').connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('the tool server against a recording gateway', () => {
  let gw: FakeGateway;
  let readOnly: Client;
  let withKey: Client;
  const call = async (c: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> => (await c.callTool({ name, arguments: args })) as unknown as ToolAnswer;
  const text = (a: ToolAnswer): string => a.content.map((c) => c.text).join('');
  /** The requests a call made. */
  const during = async <T>(fn: () => Promise<T>): Promise<{ out: T; requests: typeof gw.requests }> => {
    const from = gw.requests.length;
    const out = await fn();
    return { out, requests: gw.requests.slice(from) };
  };

  before(async () => {
    gw = await FakeGateway.start();
    readOnly = await connect(parseMcpConfig({ node_rpc: gw.url, account: ACCOUNT }));
    withKey = await connect(parseMcpConfig({ node_rpc: `${gw.url}/`, account: ACCOUNT, session_pk: toHex(nobleProvider.keygen(seed).publicKey), sk_seed_hex: toHex(seed), scope: '*' }));
  });
  after(async () => {
    await readOnly?.close();
    await withKey?.close();
    await gw?.close();
  });

  test('the server declares tools only and lists the twelve tools, each with a closed object schema and bounds', async () => {
    assert.deepEqual(readOnly.getServerCapabilities(), { tools: { listChanged: false } });
    const { tools } = await readOnly.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['ch_get_account', 'ch_get_txs', 'ch_gas_estimate', 'ch_list_proposals', 'ch_list_validators', 'ch_get_contract', 'ch_analyze_contract', 'ch_get_session_grants', 'ch_get_held', 'ch_transfer', 'ch_call_contract', 'ch_deploy'],
    );
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, t.name);
      assert.ok((t.description ?? '').length > 40, `${t.name} is described`);
      for (const [p, s] of Object.entries(t.inputSchema.properties ?? {})) assert.ok(typeof (s as { description?: unknown }).description === 'string', `${t.name}.${p} is described`);
    }
    const props = (name: string) => tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual([props('ch_get_txs').limit!.minimum, props('ch_get_txs').limit!.maximum, props('ch_get_txs').limit!.default], [1, 200, 20]);
    assert.deepEqual([props('ch_list_proposals').limit!.minimum, props('ch_list_proposals').limit!.maximum], [1, 100]);
    assert.deepEqual(props('ch_list_proposals').status!.enum, ['active', 'passed', 'rejected']);
    assert.match(String(props('ch_get_contract').address!.pattern), /\\\.app\$$/);
    assert.deepEqual(tools.find((t) => t.name === 'ch_get_contract')!.inputSchema.required, ['address']);
    assert.deepEqual(tools.find((t) => t.name === 'ch_transfer')!.inputSchema.required, ['to', 'amount_nro']);
    assert.deepEqual(Object.keys(props('ch_deploy')), ['bytecode_hex', 'template', 'name', 'description', 'init_args']);
    assert.ok(!JSON.stringify(tools).includes('x-cap'), 'route-only keywords are not shown');
  });

  test('arguments outside their schema are refused naming the argument, before any request', async () => {
    for (const [name, args, re] of [
      ['ch_get_txs', { limit: 0 }, /limit: .*greater or equal to 1/],
      ['ch_get_txs', { limit: 201 }, /limit: .*less or equal to 200/],
      ['ch_list_proposals', { limit: 101 }, /limit: .*less or equal to 100/],
      ['ch_list_proposals', { status: 'open' }, /status must be one of active, passed, rejected/],
      ['ch_get_account', { address: 'alice' }, /address: "alice" is not a chain address/],
      ['ch_get_contract', { address: ACCOUNT }, /address: .* is not a contract address/],
      ['ch_get_contract', {}, /address: Expected required property/],
      ['ch_analyze_contract', { bytecode_hex: 'abc' }, /bytecode_hex: must be an even number of hex digits/],
      ['ch_get_txs', { offset: -1 }, /offset/],
      ['ch_gas_estimate', { extra: 1 }, /extra: Unexpected property/],
      ['ch_transfer', { to: BOB, amount_nro: '0.1234567' }, /amount_nro: .*at most 6 decimals/],
      ['ch_transfer', { to: BOB, amount_nro: '1e-7' }, /amount_nro: .*exponent form/],
      ['ch_transfer', { to: BOB, amount_nro: 0 }, /amount_nro: .*zero/],
      ['ch_transfer', { to: 'bob', amount_nro: '1' }, /to: "bob" is not a chain address/],
      ['ch_call_contract', { to: 'chain:0123456789.app', function: '' }, /function/],
      ['ch_call_contract', { to: 'chain:0123456789.app', function: 'f', value: -1 }, /value/],
      ['ch_call_contract', { to: 'chain:0123456789.app', function: 'f', value: 1.5 }, /value/],
      ['ch_deploy', { name: 'no code' }, /give bytecode_hex or template/],
    ] as const) {
      const { out, requests } = await during(() => call(withKey, name, args));
      assert.equal(out.isError, true, `${name} ${JSON.stringify(args)}: ${text(out)}`);
      assert.match(text(out), re, name);
      assert.deepEqual(requests, [], `${name} ${JSON.stringify(args)} made no request`);
    }
  });

  test('read-only, each write is refused with the §78 text and nothing is read, signed or sent', async () => {
    for (const [name, args] of [
      ['ch_transfer', { to: BOB, amount_nro: '1' }],
      ['ch_call_contract', { to: 'chain:0123456789.app', function: 'transfer' }],
      ['ch_deploy', { template: 'fungible-token' }],
    ] as const) {
      const { out, requests } = await during(() => call(readOnly, name, args));
      assert.equal(out.isError, true);
      assert.equal(text(out), `${name} needs a session key: CHAIN_MCP_CONFIG has no session_pk and sk_seed_hex (read-only)`);
      assert.deepEqual(requests, []);
    }
  });

  test('a reading tool answers the gateway\'s JSON unchanged, as compact text and as structuredContent; address defaults to the account', async () => {
    const account = { address: ACCOUNT, balance: 5_000_000, balance_human: '5 COIN', nonce: 2, next_nonce: 3, big: '9007199254740993' };
    gw.answer('GET', `/api/v1/accounts/${ACCOUNT}`, 200, `{"address":"${ACCOUNT}","balance":9007199254740993,"nonce":2}`);
    const exact = await call(readOnly, 'ch_get_account');
    assert.equal(exact.isError, undefined);
    assert.equal(text(exact), `{"address":"${ACCOUNT}","balance":9007199254740993,"nonce":2}`, 'integers above 2^53 stay exact in the text');
    gw.answer('GET', `/api/v1/accounts/${BOB}`, 200, account);
    const r = await call(readOnly, 'ch_get_account', { address: BOB });
    assert.equal(text(r), JSON.stringify(account));
    assert.deepEqual(r.structuredContent, account);
    const page = { transactions: [], total: 0, limit: 20, offset: 0, has_more: false };
    gw.answer('GET', `/api/v1/transactions?address=${encodeURIComponent(ACCOUNT)}&limit=20&offset=0`, 200, page);
    const { out, requests } = await during(() => call(readOnly, 'ch_get_txs'));
    assert.deepEqual(out.structuredContent, page);
    assert.deepEqual(requests.map((q) => `${q.method} ${q.path}`), [`GET /api/v1/transactions?address=${encodeURIComponent(ACCOUNT)}&limit=20&offset=0`], 'one request, with the tool defaults');
    gw.answer('GET', '/api/v1/governance/proposals?status=passed&limit=5&offset=0', 200, { proposals: [] });
    assert.deepEqual((await call(readOnly, 'ch_list_proposals', { status: 'passed', limit: 5 })).structuredContent, { proposals: [] });
  });

  test('a failed read is `<METHOD> <path> → <status> <message>`; a 200 carrying error is a failure too; a body without error is quoted', async () => {
    gw.answer('GET', '/api/v1/contracts/chain:0123456789.app', 404, { error: 'no contract at chain:0123456789.app' });
    assert.deepEqual(await call(readOnly, 'ch_get_contract', { address: 'chain:0123456789.app' }), { content: [{ type: 'text', text: 'GET /api/v1/contracts/chain:0123456789.app → 404 no contract at chain:0123456789.app' }], isError: true });
    gw.answer('GET', '/api/v1/validators', 200, { error: 'an older endpoint\'s error' });
    assert.equal(text(await call(readOnly, 'ch_list_validators')), "GET /api/v1/validators → 200 an older endpoint's error");
    gw.answer('POST', '/api/v1/contracts/audit', 503, { error: 'contract analysis is not enabled on this network', hint: 'h' });
    const { out, requests } = await during(() => call(readOnly, 'ch_analyze_contract', { bytecode_hex: '0x0061736d' }));
    assert.equal(text(out), 'POST /api/v1/contracts/audit → 503 contract analysis is not enabled on this network');
    assert.deepEqual(requests[0]?.body, { bytecode_hex: '0x0061736d' });
    gw.answer('GET', '/api/v1/gas/estimate', 502, '<html>bad gateway</html>');
    assert.equal(text(await call(readOnly, 'ch_gas_estimate')), 'GET /api/v1/gas/estimate → 502 <html>bad gateway</html>');
  });

  test('a write reads next_nonce, base_fee and chain_id, then sends one signed POST with exactly the §80 fields; a refusal carries the node\'s status and message', async () => {
    gw.answer('GET', `/api/v1/accounts/${ACCOUNT}`, 200, { address: ACCOUNT, next_nonce: 7 })
      .answer('GET', '/api/v1/gas/estimate', 200, { base_fee: 2 })
      .answer('GET', '/api/v1/network/status', 200, { chain_id: 'unit-chain' })
      .answer('POST', '/api/v1/transactions', 200, { tx_hash: TX, status: 'pending', estimated_block: 12, sender_balance: 1, receiver_balance: 2 });
    const { out, requests } = await during(() => call(withKey, 'ch_transfer', { to: BOB, amount_nro: '0.123457' }));
    assert.equal(out.isError, undefined, text(out));
    assert.deepEqual(requests.map((q) => `${q.method} ${q.path}`), [`GET /api/v1/accounts/${ACCOUNT}`, 'GET /api/v1/gas/estimate', 'GET /api/v1/network/status', 'POST /api/v1/transactions']);
    const sent = requests[3]!.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(sent).sort(), ['from', 'gas_price', 'nonce', 'public_key', 'signature', 'to', 'value']);
    assert.deepEqual([sent.from, sent.to, sent.value, sent.nonce, sent.gas_price], [ACCOUNT, BOB, 123_457, 7, 2]);
    const r = out.structuredContent!;
    assert.deepEqual({ ...r, response: undefined }, { tx_hash: TX, status: 'pending', estimated_block: 12, from: ACCOUNT, to: BOB, value: 123_457, value_human: '0.123457 COIN', nonce: 7, gas_price: 2, response: undefined, held: null });
    assert.deepEqual(r.response, { tx_hash: TX, status: 'pending', estimated_block: 12, sender_balance: 1, receiver_balance: 2 });

    gw.answer('POST', '/api/v1/transactions', 401, { error: 'session spend cap exceeded: 123457 of 200000 ucoin spent, 100000 more asked' });
    const capped = await during(() => call(withKey, 'ch_transfer', { to: BOB, amount_nro: 0.1 }));
    assert.equal(text(capped.out), 'POST /api/v1/transactions → 401 session spend cap exceeded: 123457 of 200000 ucoin spent, 100000 more asked');
    assert.equal(capped.requests.filter((q) => q.method === 'POST').length, 1, 'no retry');

    gw.answer('GET', '/api/v1/gas/estimate', 503, { error: 'no node reachable' });
    const failedRead = await during(() => call(withKey, 'ch_transfer', { to: BOB, amount_nro: 1 }));
    assert.equal(text(failedRead.out), 'GET /api/v1/gas/estimate → 503 no node reachable');
    assert.deepEqual(failedRead.requests.map((q) => q.path), [`/api/v1/accounts/${ACCOUNT}`, '/api/v1/gas/estimate'], 'no request follows a failed one');
    gw.answer('GET', '/api/v1/gas/estimate', 200, { base_fee: 2 });
  });

  test('calls and deploys: compact data, value attached, the template\'s bytecode fetched, the §27 address reported', async () => {
    gw.answer('POST', '/api/v1/transactions', 200, { tx_hash: TX, status: 'pending', estimated_block: 13 });
    const { requests } = await during(() => call(withKey, 'ch_call_contract', { to: 'chain:0123456789.app', function: 'transfer', args: { to: BOB, amount: '2.5' }, value: 5 }));
    const sent = requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.data, `{"function":"transfer","args":{"to":"${BOB}","amount":"2.5"}}`);
    assert.equal(sent.value, 5);
    const noArgs = await during(() => call(withKey, 'ch_call_contract', { to: 'chain:0123456789.app', function: 'name' }));
    assert.deepEqual([(noArgs.requests.at(-1)!.body as Record<string, unknown>).data, (noArgs.requests.at(-1)!.body as Record<string, unknown>).value], ['{"function":"name","args":{}}', 0]);

    gw.answer('GET', '/api/v1/templates/fungible-token', 200, { id: 'fungible-token', bytecode_hex: '0061736d01000000' });
    // A deploy's address depends on the network's shard count: without it nothing is signed or sent.
    const blind = await during(() => call(withKey, 'ch_deploy', { bytecode_hex: '0061736d01000000' }));
    assert.match(text(blind.out), /^GET \/api\/v1\/network\/status → 200 the answer has no shard_count .*nothing was sent$/);
    assert.equal(blind.requests.filter((q) => q.method === 'POST').length, 0);
    gw.answer('GET', '/api/v1/network/status', 200, { chain_id: 'unit-chain', shard_count: 1 });
    const deployed = await during(() => call(withKey, 'ch_deploy', { template: 'fungible-token', name: 'T', init_args: { name: 'T', symbol: 'T', decimals: 6, total_supply: 1000 } }));
    assert.equal(deployed.requests[0]!.path, '/api/v1/templates/fungible-token', 'the template is read first');
    const body = deployed.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(body.to, 'chain:system.deploy');
    assert.equal(body.data, '{"bytecode_hex":"0061736d01000000","name":"T","template":"fungible-token","init_args":{"name":"T","symbol":"T","decimals":6,"total_supply":1000}}');
    assert.equal(deployed.out.structuredContent!.contract_address, contractAddress(ACCOUNT, TX));

    // On a sharded network the chain keeps the contract on the deployer's shard (decisions.md §71's
    // k-rule): where §27's address belongs to another shard, the tool reports the moved one.
    const count = [2, 3, 4, 5, 6, 7, 8].find((n) => shardOf(contractAddress(ACCOUNT, TX), n) !== shardOf(ACCOUNT, n))!;
    assert.ok(count, 'some shard count moves §27\'s address of this deploy off its deployer\'s shard');
    gw.answer('GET', '/api/v1/network/status', 200, { chain_id: 'unit-chain', shard_count: count });
    const sharded = (await call(withKey, 'ch_deploy', { bytecode_hex: '0061736d01000000' })).structuredContent!.contract_address as string;
    assert.equal(sharded, contractAddressOn(shardView(shardOf(ACCOUNT, count), count), ACCOUNT, TX));
    assert.notEqual(sharded, contractAddress(ACCOUNT, TX));
    assert.equal(shardOf(sharded, count), shardOf(ACCOUNT, count), 'on the deployer\'s shard');
    gw.answer('GET', '/api/v1/network/status', 200, { chain_id: 'unit-chain', shard_count: 1 });
    gw.answer('GET', '/api/v1/templates/nothing', 404, { error: 'no template nothing' });
    assert.equal(text(await call(withKey, 'ch_deploy', { template: 'nothing' })), 'GET /api/v1/templates/nothing → 404 no template nothing');
    // The analyzer gate's refusal is reported as any refused write is (decisions.md §79).
    gw.answer('POST', '/api/v1/transactions', 403, { error: 'deploy refused by the contract analyzer: risk score 92 is at or above deploy_risk_threshold 80' });
    assert.equal(text(await call(withKey, 'ch_deploy', { bytecode_hex: '0061736d01000000' })), 'POST /api/v1/transactions → 403 deploy refused by the contract analyzer: risk score 92 is at or above deploy_risk_threshold 80');
  });

  test('a held transfer: the node\'s details are relayed; where they do not say how the hold ends, the parameters decide (§81)', async () => {
    gw.answer('POST', '/api/v1/transactions', 200, { tx_hash: TX, status: 'pending', estimated_block: 14, held: { needs_owner: false, releases: 'automatic', reason: 'score', score: 0.6312, category: 'drain', release_after_blocks: 4 } });
    const auto = (await call(withKey, 'ch_transfer', { to: BOB, amount_nro: '1' })).structuredContent!.held;
    assert.deepEqual(auto, { releases: 'automatic', needs_owner: false, score: 0.6312, category: 'drain', release_after_blocks: 4, message: `held by the policy layer: released to ${BOB} automatically after 4 blocks unless the owner cancels it` });

    gw.answer('POST', '/api/v1/transactions', 200, { tx_hash: TX, status: 'pending', estimated_block: 15, held: { score: '0.6512', category: 'new_recipient' } });
    // The answer's shape is the kernel's (kernel/node/kernel-routes.ts): {params: {<key>: {value, …}}, height}.
    const param = (value: number) => ({ value, default: value, min: null, max: null, description: '', module: 'sentinel' });
    gw.answer('GET', '/api/v1/governance/params', 200, { params: { sentinel_stepup_threshold: param(70), sentinel_agent_confirm_threshold: param(65), sentinel_hold_blocks: param(50), sentinel_confirm_expiry_blocks: param(1000) }, height: 9 });
    const { out, requests } = await during(() => call(withKey, 'ch_transfer', { to: BOB, amount_nro: '1' }));
    assert.equal(requests.at(-1)!.path, '/api/v1/governance/params');
    assert.deepEqual(out.structuredContent!.held, {
      releases: 'owner_confirmation',
      needs_owner: true,
      score: 0.6512,
      category: 'new_recipient',
      refund_after_blocks: 1000,
      message: `held by the policy layer: the owner must confirm it with the account's main key (POST /api/v1/transactions/${TX}/confirm) within 1000 blocks, or it is refunded; a session key cannot confirm`,
    });
  });

  test('an unreachable gateway is an error naming its URL, and the next call is answered', async () => {
    const down = await FakeGateway.start();
    const url = down.url;
    await down.close();
    const c = await connect(parseMcpConfig({ node_rpc: url, account: ACCOUNT }));
    try {
      assert.match(text(await call(c, 'ch_gas_estimate')), new RegExp(`^GET /api/v1/gas/estimate → gateway unreachable at ${url.replace(/\./g, '\\.')}: .*ECONNREFUSED`));
      assert.match(text(await call(c, 'ch_get_held')), /^GET \/api\/v1\/held\/chain:[0-9a-f]{15}\.human → gateway unreachable at/);
    } finally {
      await c.close();
    }
    gw.answer('GET', '/api/v1/gas/estimate', 200, { base_fee: 1 });
    assert.deepEqual((await call(readOnly, 'ch_gas_estimate')).structuredContent, { base_fee: 1 });
  });
});
