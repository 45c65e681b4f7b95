import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
