import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { genesisHash } from '../kernel/chain/block-hash.js';
import type { GenesisDoc } from '../kernel/config/genesis.js';
import { readKeyFile } from '../kernel/crypto/keyfile.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { nodeIdOf } from '../kernel/crypto/node-id.js';
import { DEVNET_CHAIN_ID, DevnetChainIdError, prepareDevnet } from './launcher.js';
import { tempDir } from '../test/helpers/temp-dir.js';

test('--chain-id names a new folder\'s chain; a folder of another chain is refused naming both (decisions.md §63)', () => {
  const dir = tempDir('devnet-id-');
  const { genesisFile } = prepareDevnet({ validators: 1, dir, reset: false, chainId: 'ibc-a' });
  assert.equal((JSON.parse(readFileSync(genesisFile, 'utf8')) as { chain_id: string }).chain_id, 'ibc-a');
  assert.doesNotThrow(() => prepareDevnet({ validators: 1, dir, reset: false, chainId: 'ibc-a' }), 'the same id reopens it');
  assert.doesNotThrow(() => prepareDevnet({ validators: 1, dir, reset: false }), 'no id reopens whatever it holds');
  assert.throws(() => prepareDevnet({ validators: 1, dir, reset: false, chainId: 'ibc-b' }), (e: Error) => e instanceof DevnetChainIdError && e.message.includes('"ibc-a"') && e.message.includes('"ibc-b"'));
  const fresh = prepareDevnet({ validators: 1, dir: join(tempDir('devnet-id-'), 'x'), reset: false });
  assert.match((JSON.parse(readFileSync(fresh.genesisFile, 'utf8')) as { chain_id: string }).chain_id, /^devnet-[0-9a-f]{6}$/);
  for (const ok of ['a', 'ibc-b', 'x'.repeat(64)]) assert.ok(DEVNET_CHAIN_ID.test(ok), ok);
  for (const bad of ['', 'IBC', 'a_b', 'x'.repeat(65), 'a b']) assert.ok(!DEVNET_CHAIN_ID.test(bad), bad);
});

test('the devnet\'s genesis is made from signed join statements and passes chain genesis validate (decisions.md §82)', () => {
  const dir = join(tempDir('devnet-genesis-'), 'net');
  const { genesisFile, keyFiles } = prepareDevnet({ validators: 4, dir, reset: false, chainId: 'devnet-check' });
  assert.equal(genesisFile, join(dir, 'genesis.json'));
  const r = spawnSync(process.execPath, [resolve('dist/cli/main.js'), 'genesis', 'validate', '--network', 'devnet', genesisFile], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(genesisFile, 'utf8')) as GenesisDoc;
  assert.equal(r.stdout, `genesis ok devnet-check ${genesisHash(doc)}\n`);
  // §82 and §19: owner = the validator key's own .human, endpoints <node_id>@loopback, each owner funded (§14).
  const keys = keyFiles.map((f) => readKeyFile(f, nobleProvider));
  assert.deepEqual(doc.validators.map((v) => v.address), keys.map((k) => k.file.node_address).sort());
  for (const v of doc.validators) {
    const key = keys.find((k) => k.file.node_address === v.address)!;
    assert.equal(v.owner, key.file.address);
    assert.match(v.p2p_endpoint, new RegExp(`^${nodeIdOf(key.keys.publicKey)}@127\\.0\\.0\\.1:\\d+$`));
  }
  assert.deepEqual(doc.accounts.map((a) => [a.address, a.balance]), keys.map((k) => [k.file.address, '1000000000']).sort());
});
