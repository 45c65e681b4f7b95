import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validateConfig } from '../kernel/config/load.js';
import type { PluginDefinition } from '../kernel/sdk.js';
import { analyzerPlugin } from '../plugins/analyzer/index.js';
import { contractsPlugin } from '../plugins/contracts/index.js';
import { startGateway, type RunningGateway } from '../cli/gateway-process.js';
import { loadGatewayConfig } from '../plugins/gateway/config.js';
import { freePort, WsClient } from '../plugins/gateway/testing/process.js';
import { getJson, postJson } from './helpers/node-process.js';

/**
 * The gateway's AI and contract-security routes (plugins/gateway/ai-routes.ts) against a stub of
 * a node that serves the analyzer's routes (decisions.md §47–50), in process: what reaches the
 * node, and that its answers come back unchanged. The same routes against a real devnet and the
 * real analyzer: test/integration/gateway-ai.test.ts.
 */

const TOKEN_HEX = '0061736d01000000';
const APP = 'chain:0123456789.app';
const analysis = (extra: Record<string, unknown> = {}) => ({ risk_score: 95, security_score: 5, safe: false, ml_score: 0.95, model: 'static-v1', violations: [{ rule: 'memory-grow-in-loop', severity: 'high', weight: 40, message: 'm', offset: 40 }], gas_estimate: 4321, bytecode_hash: `0x${'ab'.repeat(32)}`, size: 8, whitelisted: false, ...extra });

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

/** Answers as a node with the analyzer would; records every request. */
function stubNode(): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      const send = (status: number, b: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(b));
      };
      const json = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      if (req.method === 'POST' && req.url === '/api/v1/contracts/analyze') {
        if (json.address === APP) return send(200, analysis({ address: APP, code_hash: `0x${'ab'.repeat(32)}`, recorded_security_score: 5, recorded_model: 'static-v1' }));
        if (json.address !== undefined) return send(404, { error: `no contract at ${String(json.address)}` });
        if (json.bytecode_hex === '00') return send(400, { error: 'bytecode is not a WebAssembly module' });
        return send(200, analysis());
      }
      if (req.method === 'POST' && req.url === '/api/v1/contracts/attest') return send(200, { ...analysis(), score: 5, timestamp: 1, subject: 'x', message: 'ch-ibc-attest-v1|…', signature: 'aa', pubkey: 'bb', signer: 'chain:validator-0.node' });
      if (req.method === 'POST' && (req.url === '/api/v1/contracts/certify' || req.url === '/api/v1/templates/register')) return send(401, { error: 'signature does not verify' });
      if (req.method === 'PATCH' && decodeURIComponent(req.url ?? '') === `/api/v1/contracts/${APP}/score`) return send(401, { error: 'key not bound', body: json });
      if (req.method === 'GET' && req.url?.startsWith('/api/v1/contracts/whitelist/')) return send(404, { error: 'no approval of that hash' });
      const certificate = { id: 7, contract: APP, owner: 'chain:0123456789abcde.human', issuer: 'chain:validator-0.node', code_hash: `0x${'ab'.repeat(32)}`, security_score: 100, risk_score: 0, model: 'static-v1', note: '', height: 3, tx_hash: `0x${'cd'.repeat(32)}` };
      if (req.method === 'GET' && (req.url === '/api/v1/certificates' || req.url?.startsWith('/api/v1/certificates?'))) return send(200, { certificates: [certificate], total: 1, limit: 5, offset: 0, has_more: false, url: req.url });
      if (req.method === 'GET' && req.url?.startsWith('/api/v1/certificates/')) return send(200, { ...certificate, url: req.url });
      if (req.method === 'GET' && req.url?.startsWith('/api/v1/models/registry')) return send(200, { models: [], total: 0 });
      return send(404, { error: `not found: ${req.method ?? ''} ${req.url ?? ''}` });
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server })));
}

/** The plugins whose declared operations and reads the gateway proxies: certify, score, whitelist, certificates, templates. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const SECURITY_PLUGINS: ReadonlyMap<string, PluginDefinition<any, any>> = new Map<string, PluginDefinition<any, any>>([['contracts', contractsPlugin], ['analyzer', analyzerPlugin]]);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function gateway(nodeUrl: string, env: Record<string, string>, catalogue: ReadonlyMap<string, PluginDefinition<any, any>> = SECURITY_PLUGINS): Promise<{ gw: RunningGateway; url: string }> {
  const port = await freePort();
  const nodeConfig = validateConfig({ network: 'devnet', env: 'testnet', log_level: 'silent', plugins: [] });
  const config = loadGatewayConfig({ PORT: String(port), GATEWAY_HOST: '127.0.0.1', NODE_RPC_URL: nodeUrl, POLL_NODE_INTERVAL_MS: '60000', NODE_TIMEOUT_MS: '2000', ...env });
  return { gw: await startGateway(nodeConfig, config, catalogue), url: `http://127.0.0.1:${port}` };
}

describe('gateway AI routes against a node stub', () => {
  let node: Awaited<ReturnType<typeof stubNode>>;
  let gw: RunningGateway;
  let url: string;

  before(async () => {
    node = await stubNode();
    ({ gw, url } = await gateway(node.url, { AI_RL_MAX_RPM: '100', ASSISTANT_ENABLED: '1' }));
  });
  after(async () => {
    await gw.stop();
    node.server.close();
    node.server.closeAllConnections();
  });

  test('audit: bytecode forwarded to the node\'s analyze, its status and body unchanged; source refused', async () => {
    const ok = await postJson(`${url}/api/v1/contracts/audit`, { bytecode_hex: TOKEN_HEX });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, analysis());
    assert.deepEqual(JSON.parse(node.seen.at(-1)!.body), { bytecode_hex: TOKEN_HEX });
    const bad = await postJson(`${url}/api/v1/contracts/audit`, { bytecode_hex: '00' });
    assert.deepEqual(bad, { status: 400, body: { error: 'bytecode is not a WebAssembly module' } }, 'the node\'s refusal as it answered it');
    const before = node.seen.length;
    for (const field of ['source', 'source_code', 'code']) {
      const r = await postJson(`${url}/api/v1/contracts/audit`, { [field]: 'contract X {}' });
      assert.equal(r.status, 400);
      assert.match(r.body.error as string, new RegExp(`"${field}" is refused, source code is not accepted`));
    }
    for (const body of [{}, { bytecode_hex: 'xyz' }, { bytecode_hex: TOKEN_HEX, extra: 1 }]) assert.equal((await postJson(`${url}/api/v1/contracts/audit`, body)).status, 400, JSON.stringify(body));
    assert.equal(node.seen.length, before, 'nothing refused reaches the node');
  });

  test('reaudit: the node\'s analysis by address, unchanged; 404 for an unknown contract', async () => {
    const r = await postJson(`${url}/api/v1/contracts/reaudit`, { address: APP });
    assert.equal(r.status, 200);
    const direct = await postJson(`${node.url}/api/v1/contracts/analyze`, { address: APP });
    assert.deepEqual(r.body, direct.body);
    const unknown = await postJson(`${url}/api/v1/contracts/reaudit`, { address: 'chain:ffffffffff.app' });
    assert.deepEqual(unknown, { status: 404, body: { error: 'no contract at chain:ffffffffff.app' } });
    assert.equal((await postJson(`${url}/api/v1/contracts/reaudit`, { address: 'nope' })).status, 400);
  });

  test('attest, certify, template registration and certificate reads: the analyzer\'s and contracts\' declared operations and reads, proxied as they are', async () => {
    const a = await postJson(`${url}/api/v1/contracts/attest`, { bytecode_hex: TOKEN_HEX });
    assert.equal(a.status, 200);
    assert.equal(a.body.signer, 'chain:validator-0.node');
    for (const path of ['/api/v1/contracts/certify', '/api/v1/templates/register']) {
      const r = await postJson(`${url}${path}`, { signer: 'chain:validator-0.node', contract: APP, signature: 'ff' });
      assert.deepEqual(r, { status: 401, body: { error: 'signature does not verify' } }, path);
      assert.equal(node.seen.at(-1)!.url, path);
    }
    for (const path of ['/api/v1/certificates?owner=chain%3A0123456789abcde.human&limit=5', '/api/v1/certificates/7', `/api/v1/certificates/contract/${APP}`]) {
      const r = await getJson(`${url}${path}`);
      assert.equal(r.status, 200, path);
      assert.equal(decodeURIComponent(r.body.url as string), decodeURIComponent(path));
    }
    const w = await getJson(`${url}/api/v1/contracts/whitelist/0x${'ab'.repeat(32)}`);
    assert.deepEqual(w, { status: 404, body: { error: 'no approval of that hash' } }, 'the whitelist read (decisions.md §49) forwarded');
  });

  test('the contract-security socket methods: certificate reads as their REST twins, certify_contract and update_contract_score as the operations\' socket methods', async () => {
    const ws = await WsClient.connect(`${url.replace('http', 'ws')}/ws`);
    try {
      await ws.next('init', (m) => m.type === 'init');
      const list = await ws.rpc('get_certificates', { owner: 'chain:0123456789abcde.human', limit: 5 });
      assert.equal(list.error, null);
      assert.deepEqual(list.result, (await getJson(`${url}/api/v1/certificates?owner=chain%3A0123456789abcde.human&limit=5`)).body);
      assert.equal(((await ws.rpc('get_certificate', { id: 7 })).result as { url: string }).url, '/api/v1/certificates/7');
      assert.equal(decodeURIComponent(((await ws.rpc('get_contract_certificate', { address: APP })).result as { url: string }).url), `/api/v1/certificates/contract/${APP}`);
      assert.match(String((await ws.rpc('get_certificate', {})).error), /params.id is required/);
      assert.match(String((await ws.rpc('certify_contract', { signer: 'chain:validator-0.node', contract: APP })).error), /signature does not verify/);
      assert.deepEqual(JSON.parse(node.seen.at(-1)!.body), { signer: 'chain:validator-0.node', contract: APP });
      assert.match(String((await ws.rpc('update_contract_score', { address: APP, signer: 'chain:validator-0.node', security_score: 90 })).error), /key not bound/);
      assert.equal(node.seen.at(-1)!.method, 'PATCH');
      assert.equal(decodeURIComponent(node.seen.at(-1)!.url), `/api/v1/contracts/${APP}/score`, 'the address goes in the path');
      // As decisions.md §45 says of the vault methods: the signed payload is the REST body, without the path's parameters.
      assert.deepEqual(JSON.parse(node.seen.at(-1)!.body), { signer: 'chain:validator-0.node', security_score: 90 }, 'not in the body: the REST body is the payload a v3/v4 signature covers');
    } finally {
      ws.close();
    }
  });

  test('ai/status carries the analyzer, generator, assistant, contract-alert and rate-limit figures', async () => {
    const s = await getJson(`${url}/api/v1/ai/status`);
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.deepEqual(s.body.analyzer, { model: 'static-v1' });
    assert.deepEqual(s.body.generator, { mode: 'builtin', kinds: ['token'] });
    assert.deepEqual(s.body.assistant, { enabled: true, model: 'docs-search-v1' });
    assert.deepEqual(s.body.contract_alerts, { check_interval_ms: 30000, spike_low_threshold: 10, spike_high_threshold: 50, low_score_threshold: 60, cooldown_ms: 60000, model: 'contract-activity-v1' });
    assert.deepEqual(s.body.rate_limit, { ai_rl_max_rpm: 100 });
  });

  test('the assistant answers from the built documentation index, the same answer every time', async () => {
    const h = await getJson(`${url}/api/v1/assistant/health`);
    assert.equal(h.status, 200);
    assert.equal(h.body.enabled, true);
    assert.equal(h.body.model, 'docs-search-v1');
    assert.ok((h.body.documents as number) >= 10, 'the repository\'s Markdown files');
    const q = { question: 'How is a contract alert classified as call_spike?' };
    const a = await postJson(`${url}/api/v1/assistant/ask`, q);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.model, 'docs-search-v1');
    const sources = a.body.sources as Array<{ path: string; title: string; score: number }>;
    assert.ok(sources.length > 0 && sources.every((s) => s.path.endsWith('.md') && typeof s.title === 'string' && s.score > 0));
    assert.ok((a.body.answer as string).length > 0);
    assert.deepEqual((await postJson(`${url}/api/v1/assistant/ask`, q)).body, a.body);
    for (const bad of [{}, { question: '' }, { question: 'x'.repeat(2001) }, { question: 7 }]) assert.equal((await postJson(`${url}/api/v1/assistant/ask`, bad)).status, 400, JSON.stringify(bad).slice(0, 40));
  });
});

describe('the shared AI budget and the assistant switch', () => {
  test('audit, reaudit, generate and assistant/ask spend one AI_RL_MAX_RPM budget per IP; ask is 403 while ASSISTANT_ENABLED is not 1', async () => {
    const node = await stubNode();
    const { gw, url } = await gateway(node.url, { AI_RL_MAX_RPM: '4' });
    try {
      const ask = await postJson(`${url}/api/v1/assistant/ask`, { question: 'staking' });
      assert.equal(ask.status, 403);
      assert.match(ask.body.error as string, /ASSISTANT_ENABLED/);
      assert.equal((await getJson(`${url}/api/v1/assistant/health`)).body.enabled, false, 'health answers while off');
      assert.equal((await postJson(`${url}/api/v1/contracts/audit`, { source: 'x' })).status, 400);
      assert.equal((await postJson(`${url}/api/v1/contracts/reaudit`, { address: APP })).status, 200);
      // The stub serves no template: 503 — it counts all the same.
      assert.equal((await postJson(`${url}/api/v1/contracts/generate`, { kind: 'token', name: 'A', symbol: 'A', decimals: 0, total_supply: 1 })).status, 503);
      for (const [path, body] of [['/api/v1/contracts/audit', { bytecode_hex: TOKEN_HEX }], ['/api/v1/contracts/reaudit', { address: APP }], ['/api/v1/contracts/generate', {}], ['/api/v1/assistant/ask', { question: 'q' }]] as const) {
        const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(r.status, 429, path);
        assert.ok(Number(r.headers.get('retry-after')) >= 59, 'the first request leaves the window in about 60 s');
        assert.equal(((await r.json()) as { error: string }).error, 'rate limit exceeded');
      }
      assert.equal((await postJson(`${url}/api/v1/contracts/attest`, { bytecode_hex: TOKEN_HEX })).status, 200, 'attest is not an AI endpoint of §52');
      assert.equal((await getJson(`${url}/api/v1/assistant/health`)).status, 200, 'nor is the assistant\'s health');
    } finally {
      await gw.stop();
      node.server.close();
      node.server.closeAllConnections();
    }
  });
});
