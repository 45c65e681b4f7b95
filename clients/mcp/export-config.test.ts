import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { deriveAddress } from '../../kernel/crypto/address.js';
import { exportConfig } from './export-config.js';
import { parseMcpConfig } from './config.js';
import { FakeGateway } from './testing/fake-gateway.js';

const ACCOUNT = deriveAddress(nobleProvider.keygen(new Uint8Array(32).fill(41)).publicKey);

test('export-config: the scope comes from the grant on chain, the file is 0600 and never overwritten; no grant or an ended one is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-export-'));
  const gw = await FakeGateway.start();
  try {
    const keyFile = join(dir, 'session.json');
    const { file } = makeKeyFile(nobleProvider, new Uint8Array(32).fill(42));
    writeKeyFile(keyFile, file);
    const listPath = `/api/v1/session/list/${ACCOUNT}?limit=100&offset=0`;
    const grantOf = (status: string) => ({ account: ACCOUNT, grants: [{ account: ACCOUNT, session_pk: file.public_key, scope: ['chain:0123456789abcde.human'], cap: 5000, cap_human: '0.005 COIN', spent: 0, expiry_block: 900, status }] });
    const out = join(dir, 'mcp.json');
    const flags = { key: keyFile, account: ACCOUNT, gateway: `${gw.url}/`, out };

    gw.answer('GET', listPath, 200, { account: ACCOUNT, grants: [] });
    await assert.rejects(exportConfig(flags, '/opt/chain/dist/cli/main.js'), /has granted no session key .* grant it first with chain op grant_session/);
    gw.answer('GET', listPath, 200, grantOf('revoked'));
    await assert.rejects(exportConfig(flags, '/opt/chain/dist/cli/main.js'), /is revoked, not active/);
    await assert.rejects(exportConfig({ ...flags, account: 'alice' }, '/x'), /--account: "alice" is not a chain address/);

    // An account with more grants than a page holds: the key's grant is on the second page.
    const other = (i: number) => ({ ...grantOf('active').grants[0]!, session_pk: i.toString(16).padStart(3904, '0') });
    gw.answer('GET', listPath, 200, { account: ACCOUNT, grants: Array.from({ length: 100 }, (_, i) => other(i)), total: 101, limit: 100, offset: 0, has_more: true });
    gw.answer('GET', `/api/v1/session/list/${ACCOUNT}?limit=100&offset=100`, 200, { ...grantOf('active'), total: 101, limit: 100, offset: 100, has_more: false });
    const told = await exportConfig(flags, '/opt/chain/dist/cli/main.js');
    const written = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(written, { node_rpc: gw.url, account: ACCOUNT, session_pk: file.public_key, sk_seed_hex: file.seed_hex, scope: ['chain:0123456789abcde.human'] });
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.equal(parseMcpConfig(written).session?.publicKeyHex, file.public_key, 'the server starts with it');
    assert.ok(!JSON.stringify(told).includes(file.seed_hex), 'the seed is never printed');
    assert.deepEqual(told.mcpServers, { 'pq-chain': { command: process.execPath, args: ['/opt/chain/dist/cli/main.js', 'mcp'], env: { CHAIN_MCP_CONFIG: out } } });
    await assert.rejects(exportConfig(flags, '/x'), /exists; refusing to overwrite/);
  } finally {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
