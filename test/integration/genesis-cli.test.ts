import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../helpers/node-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { readKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { toHex } from '../../kernel/codec/hex.js';
import { genesisJoinMessage } from '../../kernel/config/genesis-join.js';
import type { JoinStatement } from '../../kernel/config/genesis.js';

/*
 * The operators' verbs of decisions.md §82 as a person runs them: init, genesis join, collect,
 * validate, install. Every refusal is exit 1 naming the file (or validator) and the rule, with
 * nothing written. No node runs here.
 */

function chain(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function ok(args: string[]): string {
  const r = chain(args);
  assert.equal(r.code, 0, `chain ${args.join(' ')}: ${r.err}`);
  return r.out;
}

const dir = tempDir('genesis-cli-');
const CHAIN_ID = 'ops-test-1';
const GENESIS_TIME = '1700000000000';
let homeCount = 0;

/** A home with a signed join statement; returns the join file. */
function validator(moniker: string, joinArgs: string[] = [], initArgs: string[] = []): { home: string; join: string } {
  const home = join(dir, `home-${homeCount++}`);
  ok(['init', '--home', home, '--network', 'devnet', '--moniker', moniker, ...initArgs]);
  ok(['genesis', 'join', '--home', home, '--chain-id', CHAIN_ID, '--p2p-external', `10.0.0.${homeCount}:26656`, ...joinArgs]);
  return { home, join: join(home, 'config', 'join.json') };
}

function collect(out: string, joins: string[]): { code: number | null; out: string; err: string } {
  return chain(['genesis', 'collect', '--network', 'devnet', '--chain-id', CHAIN_ID, '--genesis-time', GENESIS_TIME, '--out', out, ...joins]);
}

/** collect refuses, naming the file and the rule, and writes nothing. */
function refused(joins: string[], file: string, rule: RegExp): void {
  const out = join(dir, `refused-${homeCount++}.json`);
  const r = collect(out, joins);
  assert.equal(r.code, 1, r.out);
  assert.ok(r.err.includes(file), `names ${file}: ${r.err}`);
  assert.match(r.err, rule);
  assert.ok(!existsSync(out), 'no genesis written');
}

function rewrite(file: string, change: (j: JoinStatement) => JoinStatement): string {
  const copy = file.replace(/join\.json$/, `changed-${homeCount++}.json`);
  writeFileSync(copy, JSON.stringify(change(JSON.parse(readFileSync(file, 'utf8')) as JoinStatement)));
  return copy;
}

const a = validator('alpha');
const b = validator('bravo');
const c = validator('charlie');

test('init: a 0600 key, node.json, prints node_address, node_id and owner; a second init on the home exits 1 and changes nothing', () => {
  const key = join(a.home, 'keys', 'validator.json');
  assert.equal(statSync(key).mode & 0o777, 0o600);
  const before = [readFileSync(key, 'utf8'), readFileSync(join(a.home, 'config', 'node.json'), 'utf8')];
  const again = chain(['init', '--home', a.home, '--network', 'devnet', '--moniker', 'other']);
  assert.equal(again.code, 1);
  assert.match(again.err, /already holds a key/);
  assert.deepEqual([readFileSync(key, 'utf8'), readFileSync(join(a.home, 'config', 'node.json'), 'utf8')], before);

  const fresh = join(dir, 'fresh');
  const made = JSON.parse(ok(['init', '--home', fresh, '--network', 'devnet', '--moniker', 'delta'])) as Record<string, string>;
  const file = readKeyFile(join(fresh, 'keys', 'validator.json'), nobleProvider);
  assert.equal(made.node_address, 'chain:delta.node');
  assert.equal(made.owner, file.file.address);
  assert.match(made.node_id!, /^[0-9a-f]{40}$/);
  assert.equal(made.recovery_phrase!.split(' ').length, 24);
  assert.deepEqual(JSON.parse(readFileSync(join(fresh, 'config', 'node.json'), 'utf8')), { network: 'devnet', moniker: 'delta', rpc: { host: '127.0.0.1', port: 9933 }, p2p: { host: '0.0.0.0', port: 26656 } });
  assert.equal(chain(['init', '--home', join(dir, 'bad-label'), '--moniker', '-nope']).code, 1);
});

test('collect: the same genesis whatever the order of the statements; validate and install agree on its hash', () => {
  const one = join(dir, 'order-1.json');
  const two = join(dir, 'order-2.json');
  ok(['genesis', 'collect', '--network', 'devnet', '--chain-id', CHAIN_ID, '--genesis-time', GENESIS_TIME, '--out', one, a.join, b.join, c.join]);
  ok(['genesis', 'collect', '--network', 'devnet', '--genesis-time', GENESIS_TIME, '--chain-id', CHAIN_ID, '--out', two, c.join, a.join, b.join]);
  assert.equal(readFileSync(one, 'utf8'), readFileSync(two, 'utf8'));
  const g = JSON.parse(readFileSync(one, 'utf8')) as { validators: Array<{ address: string }>; accounts: Array<{ address: string; balance: string }> };
  assert.deepEqual(g.validators.map((v) => v.address), ['chain:alpha.node', 'chain:bravo.node', 'chain:charlie.node']);
  assert.ok(g.accounts.every((x) => x.balance === '1000000000'), 'a test network funds each owner with 1 000 COIN');
  const validated = ok(['genesis', 'validate', one]).trim();
  const hash = /^genesis ok ops-test-1 (0x[0-9a-f]{64})$/.exec(validated)?.[1];
  assert.ok(hash, validated);
  assert.match(ok(['genesis', 'install', '--home', b.home, one]), new RegExp(hash));
  const nodeJson = JSON.parse(readFileSync(join(b.home, 'config', 'node.json'), 'utf8')) as { genesis_hash: string; p2p: { seeds: string[]; external: string } };
  assert.equal(nodeJson.genesis_hash, hash);
  const endpoints = (f: string): string => (JSON.parse(readFileSync(f, 'utf8')) as JoinStatement).p2p_endpoint;
  assert.deepEqual(nodeJson.p2p.seeds, [endpoints(a.join), endpoints(c.join)], 'every other validator, never itself');
  assert.equal(nodeJson.p2p.external, '10.0.0.2:26656');
  assert.deepEqual(readFileSync(join(b.home, 'config', 'genesis.json'), 'utf8'), readFileSync(one, 'utf8'));
});

test('an owner key signs too: its address owns the node; a bad owner signature or join signature is refused', () => {
  const owner = join(dir, 'owner.json');
  ok(['keys', 'generate', '--random-seed', '--out', owner]);
  const owned = validator('echo', ['--owner-key', owner]);
  const statement = JSON.parse(readFileSync(owned.join, 'utf8')) as JoinStatement;
  assert.equal(statement.owner, readKeyFile(owner, nobleProvider).file.address);
  assert.equal(statement.owner_public_key, readKeyFile(owner, nobleProvider).file.public_key);
  ok(['genesis', 'collect', '--network', 'devnet', '--chain-id', CHAIN_ID, '--out', join(dir, 'owned.json'), a.join, owned.join]);
  const badOwner = rewrite(owned.join, (j) => ({ ...j, owner_signature: j.signature }));
  refused([a.join, badOwner], badOwner, /owner_signature: validator chain:echo\.node: owner_signature does not verify/);
  const raised = rewrite(a.join, (j) => ({ ...j, stake: '20000000' }));
  refused([raised, b.join], raised, /signature: validator chain:alpha\.node: signature does not verify/);
});

test('duplicate address or key, stake below min_stake, another chain id, a node id not the key\'s: each refused by collect and by validate', () => {
  const sameName = validator('alpha');
  refused([a.join, sameName.join], sameName.join, /duplicate address: validator chain:alpha\.node: also in /);
  const words = join(dir, 'words.json');
  const phrase = (JSON.parse(ok(['keys', 'generate', '--out', words])) as { recovery_phrase: string }).recovery_phrase;
  const first = validator('foxtrot', [], ['--words', phrase]);
  const sameKey = validator('golf', [], ['--words', phrase]);
  refused([first.join, sameKey.join], sameKey.join, /duplicate public_key: validator chain:golf\.node/);
  const low = validator('hotel', ['--stake', '9999999']);
  refused([a.join, low.join], low.join, /stake: validator chain:hotel\.node: stake 9999999 ucoin is below min_stake 10000000/);
  const lowOk = join(dir, 'low-param.json');
  ok(['genesis', 'collect', '--network', 'devnet', '--chain-id', CHAIN_ID, '--param', 'min_stake=1000', '--out', lowOk, a.join, low.join]);
  const other = validator('india');
  const otherChain = join(other.home, 'config', 'join.json');
  ok(['genesis', 'join', '--home', other.home, '--chain-id', 'another-chain', '--p2p-external', '10.9.9.9:26656']);
  refused([a.join, otherChain], otherChain, /chain_id: validator chain:india\.node: the statement is for chain "another-chain", not "ops-test-1"/);
  // A statement whose endpoint names another key's node id, signed over exactly that text.
  const key = readKeyFile(join(b.home, 'keys', 'validator.json'), nobleProvider);
  const wrongId = rewrite(b.join, (j) => {
    const moved = { ...j, p2p_endpoint: `${'ab'.repeat(20)}@10.0.0.2:26656` };
    return { ...moved, signature: toHex(nobleProvider.sign(genesisJoinMessage(CHAIN_ID, moved), key.keys.secretKey)) };
  });
  refused([a.join, wrongId], wrongId, /p2p_endpoint: validator chain:bravo\.node: node id abab.* is not its key's/);

  // validate checks the same rules on a genesis document edited after collect.
  const good = join(dir, 'good.json');
  ok(['genesis', 'collect', '--network', 'devnet', '--chain-id', CHAIN_ID, '--out', good, a.join, b.join]);
  const doc = JSON.parse(readFileSync(good, 'utf8')) as { validators: Array<Record<string, string>> };
  const edits: Array<[string, (d: typeof doc) => void, RegExp]> = [
    ['dup', (d) => d.validators.push({ ...d.validators[0]! }), /duplicate address: validator chain:alpha\.node/],
    ['stake', (d) => (d.validators[1]!.stake = '1'), /stake: validator chain:bravo\.node/],
    ['sig', (d) => (d.validators[0]!.stake = '99999999999'), /signature: validator chain:alpha\.node/],
    ['schema', (d) => (d.validators[0]!.public_key = 'zz'), /schema: validator chain:alpha\.node: validators\.0\.public_key/],
  ];
  for (const [name, edit, rule] of edits) {
    const copy = JSON.parse(JSON.stringify(doc)) as typeof doc;
    edit(copy);
    const file = join(dir, `edited-${name}.json`);
    writeFileSync(file, JSON.stringify(copy));
    const r = chain(['genesis', 'validate', file]);
    assert.equal(r.code, 1, name);
    assert.match(r.err, rule, name);
    assert.ok(r.err.includes(file), name);
  }
});
