import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, getJson, makeChainDir, postJson, waitConfirmed } from '../helpers/node-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';

function chain(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('chain keys: generate writes a 0600 key file and never overwrites it; show and from-mnemonic agree', () => {
  const dir = tempDir('keys-');
  const file = join(dir, 'k.json');
  const gen = chain(['keys', 'generate', '--node', 'alpha', '--out', file]);
  assert.equal(gen.code, 0, gen.err);
  const made = JSON.parse(gen.out) as { address: string; node_address: string; recovery_phrase: string };
  assert.equal(made.node_address, 'chain:alpha.node');
  assert.equal(made.recovery_phrase.split(' ').length, 24);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const again = chain(['keys', 'generate', '--out', file]);
  assert.notEqual(again.code, 0);
  assert.match(again.err, /refusing to overwrite/);
  const shown = JSON.parse(chain(['keys', 'show', '--file', file]).out) as { address: string };
  assert.equal(shown.address, made.address);
  const fromWords = JSON.parse(chain(['keys', 'from-mnemonic', '--words', made.recovery_phrase]).out) as { address: string };
  assert.equal(fromWords.address, made.address);
  const bad = chain(['keys', 'from-mnemonic', '--words', 'not a phrase']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.err, /BIP-39/);
});

test('chain node: a bad config stops start-up naming the field or variable', () => {
  const { dir, genesis, key } = makeChainDir();
  const env = chain(['node', '--network', 'devnet', '--genesis', genesis, '--key', key, '--data-dir', join(dir, 'd')], { CHAIN_BLOCK_MS: 'soon' });
  assert.equal(env.code, 2);
  assert.match(env.err, /CHAIN_BLOCK_MS="soon": expected an integer/);
  const cfgDir = join(dir, 'configs');
  mkdirSync(cfgDir);
  writeFileSync(join(cfgDir, 'broken.json'), JSON.stringify({ consensus: { empty_block_ms: -5 } }));
  const file = chain(['node', '--network', 'broken', '--config-dir', cfgDir, '--genesis', genesis, '--key', key]);
  assert.equal(file.code, 2);
  assert.match(file.err, /consensus\.empty_block_ms/);
  const plugin = chain(['node', '--network', 'devnet', '--genesis', genesis, '--key', key, '--enable-plugin', 'nope']);
  assert.equal(plugin.code, 2);
  assert.match(plugin.err, /--enable-plugin nope: no such plugin/);
  const schema = chain(['config-schema']);
  assert.equal(schema.code, 0);
  assert.ok((JSON.parse(schema.out) as { properties: Record<string, unknown> }).properties.consensus);
});

describe('chain op: the shipped client signs ch-tx-v4 (or an own layout) and submits operations', () => {
  let net: TestDevnet;
  const dir = tempDir('cli-op-');
  const keyFile = (name: string): { file: string; address: string; public_key: string } => {
    const file = join(dir, `${name}.json`);
    const made = chain(['keys', 'generate', '--random-seed', '--out', file]);
    assert.equal(made.code, 0, made.err);
    return { file, ...(JSON.parse(chain(['keys', 'show', '--file', file]).out) as { address: string; public_key: string }) };
  };
  /** `chain op` run as a user would, without blocking this process's event loop. */
  const op = async (name: string, key: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'op', name, '--key', key, '--rpc', net.rpcUrls[0]!, '--body', JSON.stringify(body)]);
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  before(async () => {
    net = await startTestDevnet();
  });
  after(async () => net?.stop());

  test('grant a session key, rotate a key in (ch-rotate layout), and the node refuses what the CLI reports as refused', async () => {
    const owner = keyFile('owner');
    const second = keyFile('second');
    const agent = keyFile('agent');
    const funded = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: owner.address, public_key: owner.public_key });
    assert.equal(funded.status, 200, JSON.stringify(funded.body));
    await waitConfirmed(net.rpcUrls[0]!, funded.body.tx_hash as string);

    const height = (await getJson(`${net.rpcUrls[0]}/health`)).body.height as number;
    const grant = await op('grant_session', owner.file, { session_pk: agent.public_key, scope: '*', cap: 5000, expiry_block: height + 100_000 });
    assert.equal(grant.status, 'pending', JSON.stringify(grant));
    assert.equal((await waitConfirmed(net.rpcUrls[0]!, grant.tx_hash as string)).status, 'confirmed');
    const grants = (await getJson(`${net.rpcUrls[1]}/api/v1/session/list/${owner.address}`)).body.grants as Array<Record<string, unknown>>;
    assert.deepEqual(grants.map((g) => [g.session_pk, g.cap, g.spent]), [[agent.public_key, 5000, 0]]);

    const rotate = await op('rotate_key', owner.file, { add: second.public_key, remove: '' });
    const done = await waitConfirmed(net.rpcUrls[0]!, rotate.tx_hash as string);
    assert.equal(done.status, 'confirmed', JSON.stringify(done));
    assert.equal(done.type, 'rotate_key');
    for (const url of net.rpcUrls) await waitConfirmed(url, rotate.tx_hash as string);
    assert.deepEqual((await getJson(`${net.rpcUrls[2]}/api/v1/identity/${owner.address}`)).body, { address: owner.address, keys: [owner.public_key, second.public_key], version: 1 });

    // The added key removes the first; a refused operation is a non-zero exit with the node's answer.
    const removed = await op('rotate_key', second.file, { owner: owner.address, add: '', remove: owner.public_key });
    assert.equal((await waitConfirmed(net.rpcUrls[0]!, removed.tx_hash as string)).status, 'confirmed');
    const refused = spawnSync(process.execPath, [CLI, 'op', 'rotate_key', '--key', owner.file, '--rpc', net.rpcUrls[0]!, '--body', JSON.stringify({ add: agent.public_key, remove: '' })], { encoding: 'utf8' });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stdout, /not bound to/);
    assert.match(refused.stderr, /answered 401/);
    const unknown = chain(['op', 'no_such_op', '--key', owner.file, '--body', '{}']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.err, /unknown operation "no_such_op"/);
  });
});
