import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { sha3Hex0x, parseHex, isChainError } from '../../../kernel/sdk.js';
import { loadGatewayConfig, Secret } from '../config.js';
import type { NodeAnswer } from '../node-client.js';
import { BUILTIN_GENERATOR, ContractGenerator, type GeneratorDeps } from './contract-generator.js';
import { tokenParams } from './token-params.js';

const CODE = '0061736d0100000001020304';
const ANALYSIS = { risk_score: 5, security_score: 95, safe: true, ml_score: 0.05, model: 'static-v1', violations: [], gas_estimate: 1234, bytecode_hash: sha3Hex0x(parseHex(CODE)!), size: 12, whitelisted: false };
const FIELDS = { kind: 'token', name: 'Gold', symbol: 'GLD', decimals: 6, total_supply: 1_000_000 };

function deps(over: Partial<GeneratorDeps> = {}): GeneratorDeps & { analyzed: string[] } {
  const analyzed: string[] = [];
  return {
    analyzed,
    read: (path) => Promise.resolve<NodeAnswer>(path === '/api/v1/templates/fungible-token' ? { status: 200, body: { id: 'fungible-token', builtin: true, bytecode_hex: CODE, bytecode_hash: sha3Hex0x(parseHex(CODE)!), abi: { name: 'fungible-token' } } } : { status: 404, body: { error: 'no template' } }),
    analyze: (hex) => {
      analyzed.push(hex);
      return Promise.resolve({ status: 200, body: ANALYSIS });
    },
    sources: { token: { template: 'fungible-token', source_path: 'plugins/contracts/templates/token/assembly/index.ts', source: 'export function call(): void {}' } },
    provider: undefined,
    ...over,
  };
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (e: unknown) {
    if (isChainError(e)) return { status: e.status, message: e.message };
    throw e;
  }
  assert.fail('expected a refusal');
}

test('the built-in generator answers the shipped template\'s bytecode, the parameters as init_args and the node\'s analysis', async () => {
  const d = deps();
  const g = new ContractGenerator(d);
  assert.equal(g.mode, 'builtin');
  const out = await g.generate(FIELDS);
  assert.deepEqual(out, {
    kind: 'token',
    generator: BUILTIN_GENERATOR,
    template: 'fungible-token',
    source: 'export function call(): void {}',
    abi: { name: 'fungible-token' },
    bytecode_hex: CODE,
    bytecode_hash: ANALYSIS.bytecode_hash,
    init_args: { name: 'Gold', symbol: 'GLD', decimals: 6, total_supply: 1_000_000 },
    analysis: ANALYSIS,
  });
  assert.deepEqual(d.analyzed, [CODE], 'the analysis is the node\'s, of exactly these bytes');
});

test('each field is held to §52, with 400 naming it; another kind names the kinds', async () => {
  const g = new ContractGenerator(deps());
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ ...FIELDS, kind: 'nft' }, /kinds are: token/],
    [{ ...FIELDS, kind: undefined }, /kind is required/],
    [{ ...FIELDS, name: '' }, /name must be/],
    [{ ...FIELDS, name: 'x'.repeat(65) }, /name must be/],
    [{ ...FIELDS, symbol: 'gld' }, /symbol must be/],
    [{ ...FIELDS, symbol: 'ABCDEFGHIJKLM' }, /symbol must be/],
    [{ ...FIELDS, decimals: 19 }, /decimals must be/],
    [{ ...FIELDS, decimals: '6' }, /decimals must be/],
    [{ ...FIELDS, decimals: 1.5 }, /decimals must be/],
    [{ ...FIELDS, total_supply: 0 }, /total_supply must be/],
    [{ ...FIELDS, total_supply: '100' }, /total_supply must be/],
    [{ ...FIELDS, decimals: 18, total_supply: 19 }, /above 2\^64 − 1/],
    [{ ...FIELDS, source: 'contract X {}' }, /not "source"/],
    [{ ...FIELDS, prompt: 'a token' }, /AI_PROVIDER_API_KEY/],
  ];
  for (const [body, why] of bad) {
    const r = await refusal(g.generate(body));
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.match(r.message, why, JSON.stringify(body));
  }
  // The edge of 2^64 − 1: 18 446 744 073 709 551 615 units.
  assert.equal(tokenParams({ ...FIELDS, decimals: 18, total_supply: 18n }).total_supply, 18n);
  assert.equal(tokenParams({ ...FIELDS, decimals: 0, total_supply: (1n << 64n) - 1n }).total_supply, (1n << 64n) - 1n);
  assert.throws(() => tokenParams({ ...FIELDS, decimals: 0, total_supply: 1n << 64n }), /above 2\^64/);
});

test('without an analyzer on the node generate is 503; a template the node does not serve is 503', async () => {
  const none = new ContractGenerator(deps({ analyze: () => Promise.resolve({ status: 404, body: { error: 'not found: POST /api/v1/contracts/analyze' } }) }));
  assert.deepEqual(await refusal(none.generate(FIELDS)), { status: 503, message: 'contract analysis is not enabled on this network' });
  const noTemplate = new ContractGenerator(deps({ read: () => Promise.resolve({ status: 404, body: { error: 'no template' } }) }));
  assert.equal((await refusal(noTemplate.generate(FIELDS))).status, 503);
});

/** An OpenAI-compatible chat completions stub: answers `content` and records what it was sent. */
async function provider(content: string, status = 200): Promise<{ url: string; seen: Array<{ headers: IncomingHttpHeaders; body: string }>; close: () => Promise<void> }> {
  const seen: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const s = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }) : JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization?.slice(7) ?? ''}` } }));
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1/chat/completions`, seen, close: () => new Promise<void>((r) => s.close(() => r())) };
}

const KEY = 'sk-test-0123456789-secret';

test('with AI_PROVIDER_API_KEY a prompt is turned into fields by the model, which never supplies code', async () => {
  // The model "helpfully" adds code and a bytecode of its own: dropped, the template's bytes are served.
  const p = await provider('```json\n{"kind":"token","name":"Moon Coin","symbol":"MOON","decimals":2,"total_supply":5000,"source":"evil()","bytecode_hex":"00"}\n```');
  try {
    const config = loadGatewayConfig({ AI_PROVIDER_API_KEY: KEY, AI_PROVIDER_URL: p.url, AI_PROVIDER_MODEL: 'tiny-1' });
    const d = deps({ provider: config.aiProvider });
    const g = new ContractGenerator(d);
    assert.equal(g.mode, 'llm');
    const out = await g.generate({ prompt: 'a token called Moon Coin, MOON, 2 decimals, 5000 of them' });
    assert.equal(out.generator, 'llm:tiny-1');
    assert.equal(out.bytecode_hex, CODE);
    assert.deepEqual(out.init_args, { name: 'Moon Coin', symbol: 'MOON', decimals: 2, total_supply: 5000 });
    assert.equal(p.seen[0]!.headers.authorization, `Bearer ${KEY}`, 'the key goes in the Authorization header');
    const sent = JSON.parse(p.seen[0]!.body) as { model: string; messages: Array<{ content: string }> };
    assert.equal(sent.model, 'tiny-1');
    assert.equal(sent.messages[1]!.content, 'a token called Moon Coin, MOON, 2 decimals, 5000 of them');
    assert.equal((await refusal(g.generate({ prompt: 'x', name: 'A' }))).status, 400, 'a prompt or the fields, not both');
    assert.equal((await refusal(g.generate({ prompt: '' }))).status, 400);
  } finally {
    await p.close();
  }
});

test('fields a model fills are held to the same checks (502: the model\'s fault, not the client\'s)', async () => {
  const p = await provider('{"kind":"token","name":"X","symbol":"lower","decimals":2,"total_supply":5}');
  try {
    const g = new ContractGenerator(deps({ provider: loadGatewayConfig({ AI_PROVIDER_API_KEY: KEY, AI_PROVIDER_URL: p.url }).aiProvider }));
    const r = await refusal(g.generate({ prompt: 'a token' }));
    assert.equal(r.status, 502);
    assert.match(r.message, /symbol must be/);
  } finally {
    await p.close();
  }
});

test('AI_PROVIDER_API_KEY is never logged, echoed in an error or serialised with the config', async () => {
  const p = await provider('', 401); // the provider echoes the key in its error, as real ones do
  const lines: string[] = [];
  const log = pino({ level: 'trace' }, new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString('utf8')), cb()) }));
  try {
    const config = loadGatewayConfig({ AI_PROVIDER_API_KEY: KEY, AI_PROVIDER_URL: p.url });
    const g = new ContractGenerator(deps({ provider: config.aiProvider }));
    const r = await refusal(g.generate({ prompt: 'a token' }));
    assert.equal(r.status, 502);
    assert.match(r.message, /answered 401: .*\*\*\*/);
    assert.ok(!r.message.includes(KEY), r.message);
    log.info({ provider: config.aiProvider }, 'gateway config');
    log.error({ err: new Error(r.message) }, 'generate failed');
    assert.ok(lines.length === 2 && lines.every((l) => !l.includes(KEY)), lines.join(''));
    assert.ok(!JSON.stringify(config.aiProvider).includes(KEY));
    assert.ok(!String(config.aiProvider?.apiKey).includes(KEY));
    assert.equal(config.aiProvider?.apiKey.reveal(), KEY);
    assert.throws(() => loadGatewayConfig({ AI_PROVIDER_API_KEY: KEY, AI_PROVIDER_URL: 'not a url' }), (e: Error) => !e.message.includes(KEY));
    assert.ok(new Secret(KEY).redact(`key ${KEY} and ${KEY}`) === 'key *** and ***');
  } finally {
    await p.close();
  }
});
