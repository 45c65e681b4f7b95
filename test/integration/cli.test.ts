import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, getJson, makeChainDir, postJson, startNodeProcess, until, waitConfirmed } from '../helpers/node-process.js';
import { testGenesis } from '../helpers/genesis.js';
import { genesisHash } from '../../kernel/chain/block-hash.js';
import { readKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { freePorts } from '../helpers/cluster.js';
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

test('chain node: exits 1 naming both hashes when the genesis is not the pinned one, or not the chain in the data folder', async () => {
  const node = await startNodeProcess();
  const status = (await getJson(`${node.url}/status`)).body;
  await node.stop();
  const data = join(node.dir, 'data');
  const key = join(node.dir, 'validator.json');
  const pinned = chain(['node', '--network', 'devnet', '--genesis', join(node.dir, 'genesis.json'), '--key', key, '--data-dir', data, '--rpc-port', '0', '--genesis-hash', `0x${'00'.repeat(32)}`]);
  assert.equal(pinned.code, 1, pinned.err);
  assert.ok(pinned.err.includes(status.genesis_hash as string) && pinned.err.includes(`0x${'00'.repeat(32)}`), pinned.err);
  // Same key and chain id, another genesis time: another genesis for the data folder's chain.
  const other = join(node.dir, 'other-genesis.json');
  const loaded = readKeyFile(key, nobleProvider);
  const otherDoc = testGenesis({ chainId: status.chain_id as string, genesisTime: 1_700_000_000_001, validators: [{ address: loaded.file.node_address!, key: loaded.keys, stake: '10000000000' }] });
  writeFileSync(other, JSON.stringify(otherDoc));
  const moved = chain(['node', '--network', 'devnet', '--genesis', other, '--key', key, '--data-dir', data, '--rpc-port', '0']);
  assert.equal(moved.code, 1, moved.err);
  assert.ok(moved.err.includes(status.genesis_hash as string) && moved.err.includes(genesisHash(otherDoc)), moved.err);
  // A genesis breaking a rule of §82 (here its signature): exit 1 naming the rule.
  writeFileSync(other, JSON.stringify({ ...otherDoc, validators: [{ ...otherDoc.validators[0]!, stake: '20000000000' }] }));
  const broken = chain(['node', '--network', 'devnet', '--genesis', other, '--key', key, '--data-dir', join(node.dir, 'fresh'), '--rpc-port', '0']);
  assert.equal(broken.code, 1, broken.err);
  assert.match(broken.err, /signature: validator chain:validator-0\.node: signature does not verify/);
});

describe('the CLI on a devnet: chain op, the wallet verbs, chain top', () => {
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
    // Node 1 may commit that block a moment after node 0.
    await waitConfirmed(net.rpcUrls[1]!, grant.tx_hash as string);
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

  test('wallet verbs: faucet, send of "1.5" COIN confirmed with the exact balance change, tx of it, a refused send, watch seeing the credit', async () => {
    const alice = keyFile('alice');
    const bob = keyFile('bob');
    const run = promisify(execFile);
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    const funded = JSON.parse((await cli(['faucet', '--key', alice.file, '--rpc', net.gatewayUrl, '--json'])).stdout) as Record<string, unknown>;
    assert.equal(funded.status, 'confirmed');
    assert.equal(funded.balance, funded.amount);

    // watch, started before the send, sees bob's balance and then the credit.
    const watch = spawn(process.execPath, [CLI, 'watch', bob.address, '--gateway', net.gatewayUrl, '--count', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const watched: string[] = [];
    createInterface({ input: watch.stdout! }).on('line', (l) => watched.push(l));
    const watchDone = new Promise<number | null>((resolve) => watch.once('exit', (code) => resolve(code)));
    await until('watch printed the first balance', async () => (watched.length >= 1 ? true : undefined));
    assert.match(watched[0]!, new RegExp(`${bob.address}  0 COIN  nonce 0$`));

    const before = (await getJson(`${net.rpcUrls[0]}/api/v1/accounts/${alice.address}`)).body.balance as number;
    // CHAIN_RPC instead of --rpc: the node a person's shell points at.
    const sent = (await cli(['send', '--key', alice.file, '--to', bob.address, '--amount', '1.5'], { CHAIN_RPC: net.rpcUrls[1]! })).stdout;
    const m = /^(0x[0-9a-f]{64}) confirmed in block (\d+): 1\.5 COIN to (\S+), fee (\S+) COIN\nbalance of (\S+): (\S+) COIN\n$/.exec(sent);
    assert.ok(m, sent);
    const [, hash, , to, fee, from, balance] = m;
    assert.deepEqual([to, from], [bob.address, alice.address]);
    const tx = JSON.parse((await cli(['tx', hash!, '--rpc', net.rpcUrls[2]!, '--json'])).stdout) as Record<string, unknown>;
    assert.deepEqual([tx.status, tx.from, tx.to, tx.value, tx.fee_human], ['confirmed', alice.address, bob.address, 1_500_000, `${fee} COIN`]);
    const after = (await getJson(`${net.rpcUrls[1]}/api/v1/accounts/${alice.address}`)).body;
    assert.equal(before - (after.balance as number), 1_500_000 + (tx.fee as number), 'exactly 1.5 COIN and the fee');
    assert.equal(after.balance_human, `${balance} COIN`);
    await until('the block on every node', async () => ((await getJson(`${net.rpcUrls[3]}/api/v1/transactions/${hash}`)).body.status === 'confirmed' ? true : undefined));
    const bobNow = JSON.parse((await cli(['balance', bob.address, '--rpc', net.rpcUrls[3]!, '--json'])).stdout) as Record<string, unknown>;
    assert.deepEqual([bobNow.balance, bobNow.balance_human], [1_500_000, '1.5 COIN']);
    assert.match((await cli(['balance', bob.address, '--rpc', net.rpcUrls[0]!])).stdout, new RegExp(`^${bob.address}  1\\.5 COIN  \\(1500000 ucoin, nonce 0\\)$`, 'm'));

    assert.equal(await watchDone, 0);
    assert.match(watched[1]!, new RegExp(`${bob.address}  1\\.5 COIN  \\(\\+1\\.5 COIN\\)  nonce 0$`));

    const refused = spawnSync(process.execPath, [CLI, 'send', '--key', alice.file, '--to', bob.address, '--amount', '1000000', '--rpc', net.rpcUrls[0]!], { encoding: 'utf8' });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /the node answered 400: insufficient balance/);
    // --no-wait: the node's acceptance, printed before the block; the transfer then lands.
    const queued = JSON.parse((await cli(['send', '--key', alice.file, '--to', bob.address, '--amount', '7ucoin', '--no-wait', '--json', '--rpc', net.rpcUrls[0]!])).stdout) as Record<string, unknown>;
    assert.equal(queued.status, 'pending', JSON.stringify(queued));
    assert.match(queued.tx_hash as string, /^0x[0-9a-f]{64}$/);
    const landed = await waitConfirmed(net.rpcUrls[0]!, queued.tx_hash as string);
    assert.deepEqual([landed.status, landed.value], ['confirmed', 7]);
    const typo = chain(['send', '--key', alice.file, '--to', bob.address, '--amount', '1.0000001']);
    assert.equal(typo.code, 1);
    assert.match(typo.err, /--amount "1\.0000001": give COIN as decimal text/);
  });

  test('the README\'s "Try it" block, run as written in a shell against the devnet: from two new keys to a confirmed send without curl', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const from = readme.indexOf('Try it, in a second terminal');
    assert.ok(from > 0 && from < readme.indexOf('## The `chain` CLI'), 'Try it sits in the README\'s first section');
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(from))![1]!;
    assert.doesNotMatch(block, /\bcurl\b|\bjq\b/, 'the walk needs neither curl nor jq');
    for (const verb of ['keys generate', 'faucet', 'send', 'balance', 'tx', 'watch', 'top']) assert.match(block, new RegExp(`^chain ${verb}\\b`, 'm'), verb);
    // The alias line becomes a function (a script does not expand aliases); a line naming a
    // placeholder (<hash>, <address>) or drawing live (top) is the reader's to fill in or stop.
    const lines = block.split('\n').filter((l) => l.startsWith('chain ') && !l.includes('<') && !l.startsWith('chain top'));
    assert.ok(block.split('\n')[0]!.startsWith('alias chain='), 'the block starts by making chain a command');
    const walk = join(dir, 'readme-walk');
    mkdirSync(walk, { recursive: true });
    const script = [`chain() { "${process.execPath}" "${CLI}" "$@"; }`, 'set -e', ...lines].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: walk, env: { ...process.env, CHAIN_RPC: net.rpcUrls[0]!, CHAIN_GATEWAY: net.gatewayUrl } });
    const sent = /^(0x[0-9a-f]{64}) confirmed in block \d+: 1\.5 COIN to (chain:[0-9a-f]{15}\.human), fee \S+ COIN$/m.exec(stdout);
    assert.ok(sent, stdout);
    assert.match(stdout, new RegExp(`^${sent[2]!.replace('.', '\\.')}  1\\.5 COIN  \\(1500000 ucoin, nonce 0\\)$`, 'm'), 'bob\'s balance is the 1.5 COIN sent');
    const tx = (await getJson(`${net.rpcUrls[0]}/api/v1/transactions/${sent[1]}`)).body;
    assert.deepEqual([tx.status, tx.value], ['confirmed', 1_500_000]);
  });

  test('chain top --once: one frame without escapes, a row per validator of the devnet folder, down for a node that does not answer', async () => {
    const base = Number(new URL(net.rpcUrls[0]!).port);
    const [deadPort] = await freePorts(1);
    const frame = await promisify(execFile)(process.execPath, [CLI, 'top', '--once', '--rpc', [...net.rpcUrls, `http://127.0.0.1:${deadPort}`].join(',')], { env: { ...process.env, COLUMNS: '120' } });
    assert.ok(!frame.stdout.includes('\x1b'), 'no ANSI escape');
    const lines = frame.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^chain top {2}5 node\(s\), 4 up, height \d+$/);
    assert.match(lines[1]!, /^NODE +HEIGHT +ROUND +PROPOSER +TPS +MEMPOOL +PEERS +LAST BLOCK$/);
    for (let i = 0; i < 4; i++) assert.match(lines[2 + i]!, new RegExp(`^chain:validator-${i}\\.node +\\d+ +\\d+ +chain:validator-\\d\\.node +\\d+ +\\d+ +3 +\\d+\\.\\ds$`));
    assert.match(lines[6]!, new RegExp(`^http://127\\.0\\.0\\.1:${deadPort} +down \\(ECONNREFUSED\\)$`));
    const byDir = await promisify(execFile)(process.execPath, [CLI, 'top', '--once', '--dir', net.dir, '--base-port', String(base)]);
    assert.equal(byDir.stdout.trimEnd().split('\n').length, 6, 'a row per genesis validator');
  });
});
