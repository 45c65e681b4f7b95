import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { deriveAddress } from '../../kernel/crypto/address.js';
import { toHex } from '../../kernel/codec/hex.js';
import { loadMcpConfig, McpConfigError, parseMcpConfig } from './config.js';

const seed = new Uint8Array(32).fill(7);
const keys = nobleProvider.keygen(seed);
const SESSION = { session_pk: toHex(keys.publicKey), sk_seed_hex: toHex(seed) };
const ACCOUNT = deriveAddress(nobleProvider.keygen(new Uint8Array(32).fill(8)).publicKey);
const GATEWAY = 'http://127.0.0.1:3000';

function refusedWith(raw: unknown, field: string, re: RegExp): void {
  assert.throws(
    () => parseMcpConfig(raw),
    (e: unknown) => e instanceof McpConfigError && e.field === field && re.test(e.message),
    `expected a refusal naming ${field}`,
  );
}

test('read-only: both session fields empty or absent; a trailing / of node_rpc is dropped', () => {
  assert.deepEqual(parseMcpConfig({ node_rpc: `${GATEWAY}/` }), { nodeRpc: GATEWAY, account: undefined, session: undefined });
  assert.deepEqual(parseMcpConfig({ node_rpc: GATEWAY, account: ACCOUNT, session_pk: '', sk_seed_hex: '', scope: '*' }), { nodeRpc: GATEWAY, account: ACCOUNT, session: undefined });
  assert.equal(parseMcpConfig({ node_rpc: 'https://gw.example:8443/base', session_pk: null, sk_seed_hex: null }).nodeRpc, 'https://gw.example:8443/base');
});

test('a session key: the seed generates session_pk; scope is never read', () => {
  const c = parseMcpConfig({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, scope: 'anything at all' });
  assert.equal(c.session?.publicKeyHex, SESSION.session_pk);
  assert.deepEqual(c.session?.keys.secretKey, keys.secretKey);
  // Upper-case hex of the same key is the same key.
  assert.equal(parseMcpConfig({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, session_pk: SESSION.session_pk.toUpperCase() }).session?.publicKeyHex, SESSION.session_pk);
});

test('each configuration refusal names its field', () => {
  refusedWith({}, 'node_rpc', /missing: the gateway's base URL/);
  refusedWith({ node_rpc: '' }, 'node_rpc', /missing/);
  refusedWith({ node_rpc: '127.0.0.1:3000' }, 'node_rpc', /http:\/\/ or https:\/\/ URL/);
  refusedWith({ node_rpc: 'ftp://gw' }, 'node_rpc', /http:\/\/ or https:\/\/ URL/);
  refusedWith({ node_rpc: 3000 }, 'node_rpc', /URL/);
  refusedWith({ node_rpc: GATEWAY, account: 'alice' }, 'account', /"alice" is not a chain address/);
  refusedWith({ node_rpc: GATEWAY, account: ACCOUNT, session_pk: SESSION.session_pk }, 'sk_seed_hex', /empty while session_pk is set/);
  refusedWith({ node_rpc: GATEWAY, account: ACCOUNT, sk_seed_hex: SESSION.sk_seed_hex, session_pk: '' }, 'session_pk', /empty while sk_seed_hex is set/);
  refusedWith({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, session_pk: 'abcd' }, 'session_pk', /3904 hex characters/);
  refusedWith({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, sk_seed_hex: 'abcd' }, 'sk_seed_hex', /64 hex characters/);
  refusedWith({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, sk_seed_hex: `0x${SESSION.sk_seed_hex.slice(2)}` }, 'sk_seed_hex', /64 hex characters/);
  refusedWith({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, sk_seed_hex: toHex(new Uint8Array(32).fill(9)) }, 'sk_seed_hex', /does not have the public key session_pk/);
  refusedWith({ node_rpc: GATEWAY, ...SESSION }, 'account', /required with a session key/);
  refusedWith([], 'CHAIN_MCP_CONFIG', /JSON object/);
  refusedWith('node_rpc', 'CHAIN_MCP_CONFIG', /JSON object/);
});

test('the file: unset variable, unreadable file and invalid JSON are refused naming CHAIN_MCP_CONFIG', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-config-'));
  try {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"node_rpc": ');
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION }));
    const refused = (env: Record<string, string | undefined>, re: RegExp) =>
      assert.throws(
        () => loadMcpConfig(env),
        (e: unknown) => e instanceof McpConfigError && e.field === 'CHAIN_MCP_CONFIG' && re.test(e.message),
      );
    refused({}, /not set/);
    refused({ CHAIN_MCP_CONFIG: '' }, /not set/);
    refused({ CHAIN_MCP_CONFIG: join(dir, 'absent.json') }, /cannot read .*absent\.json/);
    refused({ CHAIN_MCP_CONFIG: bad }, /bad\.json is not valid JSON/);
    assert.equal(loadMcpConfig({ CHAIN_MCP_CONFIG: good }).account, ACCOUNT);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('chain mcp stops with exit code 2 before answering initialize, naming the variable or field, for every refusal, and writes nothing to stdout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-cli-'));
  try {
    const file = (name: string, text: string): string => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const json = (name: string, value: unknown): string => file(name, JSON.stringify(value));
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) + '\n';
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'CHAIN_MCP_CONFIG'],
      [{ CHAIN_MCP_CONFIG: join(dir, 'absent.json') }, 'CHAIN_MCP_CONFIG'],
      [{ CHAIN_MCP_CONFIG: file('bad.json', '{"node_rpc": ') }, 'CHAIN_MCP_CONFIG'],
      [{ CHAIN_MCP_CONFIG: json('array.json', []) }, 'CHAIN_MCP_CONFIG'],
      [{ CHAIN_MCP_CONFIG: json('no-rpc.json', { account: ACCOUNT }) }, 'node_rpc'],
      [{ CHAIN_MCP_CONFIG: json('port.json', { node_rpc: '127.0.0.1:3000' }) }, 'node_rpc'],
      [{ CHAIN_MCP_CONFIG: json('account.json', { node_rpc: GATEWAY, account: 'alice' }) }, 'account'],
      [{ CHAIN_MCP_CONFIG: json('half-pk.json', { node_rpc: GATEWAY, account: ACCOUNT, session_pk: SESSION.session_pk }) }, 'sk_seed_hex'],
      [{ CHAIN_MCP_CONFIG: json('half-seed.json', { node_rpc: GATEWAY, account: ACCOUNT, sk_seed_hex: SESSION.sk_seed_hex }) }, 'session_pk'],
      [{ CHAIN_MCP_CONFIG: json('short-pk.json', { node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, session_pk: 'abcd' }) }, 'session_pk'],
      [{ CHAIN_MCP_CONFIG: json('short-seed.json', { node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, sk_seed_hex: 'abcd' }) }, 'sk_seed_hex'],
      [{ CHAIN_MCP_CONFIG: json('other-seed.json', { node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, sk_seed_hex: toHex(new Uint8Array(32).fill(9)) }) }, 'sk_seed_hex'],
      [{ CHAIN_MCP_CONFIG: json('no-account.json', { node_rpc: GATEWAY, ...SESSION }) }, 'account'],
    ];
    for (const [env, field] of cases) {
      const r = spawnSync(process.execPath, [resolve('dist/cli/main.js'), 'mcp'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, input: initialize, encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 2, `${JSON.stringify(env)}: ${r.stderr}`);
      assert.equal(r.stdout, '', 'no protocol message: initialize is not answered');
      assert.match(r.stderr, new RegExp(`^chain mcp: ${field}: `), JSON.stringify(env));
      assert.ok(!r.stderr.includes(SESSION.sk_seed_hex), 'the seed is never written out');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('chain mcp answers initialize on stdout with the tools capability only, logs on stderr, and exits when stdin closes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-cli-'));
  try {
    const config = join(dir, 'session.json');
    writeFileSync(config, JSON.stringify({ node_rpc: GATEWAY, account: ACCOUNT, ...SESSION, scope: '*' }));
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) + '\n';
    // spawnSync writes the input and closes stdin: the server must answer, then stop by itself.
    const r = spawnSync(process.execPath, [resolve('dist/cli/main.js'), 'mcp'], { cwd: dir, env: { PATH: process.env.PATH, CHAIN_MCP_CONFIG: config }, input: initialize, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.signal, null, 'it exited by itself, not by the timeout');
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 1, `stdout carries the one protocol message only: ${r.stdout}`);
    const answer = JSON.parse(lines[0]!) as { id: number; result: { capabilities: Record<string, unknown>; serverInfo: { name: string } } };
    assert.equal(answer.id, 1);
    assert.deepEqual(answer.result.capabilities, { tools: { listChanged: false } }, 'no resources, no prompts');
    assert.equal(answer.result.serverInfo.name, 'pq-chain');
    assert.match(r.stderr, /serving tools on stdio/);
    assert.ok(!r.stderr.includes(SESSION.sk_seed_hex) && !r.stdout.includes(SESSION.sk_seed_hex), 'the seed is never written out');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
