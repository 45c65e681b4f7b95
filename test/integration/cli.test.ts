import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, makeChainDir } from '../helpers/node-process.js';
import { tempDir } from '../helpers/temp-dir.js';

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
