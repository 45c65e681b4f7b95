import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { configFileSchema } from './file-schema.js';

const validate = new Ajv({ strict: false, allErrors: true }).compile(configFileSchema());
const problems = (): string => JSON.stringify(validate.errors ?? []).slice(0, 500);

test('every shipped network file, and the node.json chain init writes, are files of the chain config-schema schema (decisions.md §82)', () => {
  for (const name of readdirSync('configs').filter((f) => f.endsWith('.json'))) {
    const file: unknown = JSON.parse(readFileSync(join('configs', name), 'utf8'));
    assert.ok(validate(file), `${name}: ${problems()}`);
  }
  const node = { network: 'devnet', moniker: 'nine', rpc: { host: '127.0.0.1', port: 9933 }, p2p: { host: '0.0.0.0', port: 26656 } };
  assert.ok(validate(node), problems());
});

test('the file schema still refuses what the configuration refuses: a wrong type, an unknown field, a plugin entry without its name', () => {
  for (const bad of [{ consensus: { empty_block_ms: -5 } }, { rpc: { port: 'x' } }, { nonsense: true }, { plugins: [{ enabled: true }] }]) {
    assert.equal(validate(bad), false, JSON.stringify(bad));
  }
});
