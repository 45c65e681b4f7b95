import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { testGenesis } from '../helpers/genesis.js';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { labelledWallet, signOperation } from '../helpers/chain-fixture.js';
import { freePorts } from '../helpers/cluster.js';
import { getJson, postJson, spawnChainProcess, until, waitConfirmed, type ChainProcess } from '../helpers/node-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A chain of one validator grows to two without a restart, on real processes of the test build
 * (its `memo` plugin turns a signed request into an endBlock validator update). A runs alone, on
 * the one-validator producer, with no seeds; B runs with its key outside the set and A as its
 * seed, which does not answer yet. The update adding B in block H makes A hand over to BFT before
 * height H + 1 and open its P2P port; B reaches A, catches up on the blocks A made alone (each
 * carries A's precommit as certificate) and signs from H + 2, with half the power: no block after
 * H + 1 is final without it.
 */
const TEST_CLI = resolve('dist/test/fixtures/test-chain.js');
const MEMO = 'chain:system.memo';
const STAKE = 10_000_000_000;

test('a one-validator chain grows to BFT without a restart: the producer hands over and the added follower signs', async () => {
  const dir = tempDir('solo-to-bft-');
  const a0 = makeKeyFile(nobleProvider, new Uint8Array(32).fill(41), 'grow-a');
  const keyA = a0.file;
  const keyB = makeKeyFile(nobleProvider, new Uint8Array(32).fill(42), 'grow-b').file;
  writeKeyFile(join(dir, 'a.json'), keyA);
  writeKeyFile(join(dir, 'b.json'), keyB);
  const genesis = testGenesis({ chainId: 'grow-chain', validators: [{ address: keyA.node_address!, key: a0.keys, stake: String(STAKE) }] });
  writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis));
  const [p2pA, p2pB] = await freePorts(2);
  const env = { CHAIN_LOG_LEVEL: 'info', CHAIN_MIN_VALIDATORS: '1', CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '250', CHAIN_RPC_RATE_LIMIT: '0' };
  const start = (name: string, extra: string[]): Promise<ChainProcess> =>
    spawnChainProcess(
      ['node', '--network', 'devnet', '--enable-plugin', 'memo', '--genesis', join(dir, 'genesis.json'), '--key', join(dir, `${name}.json`), '--data-dir', join(dir, name), '--rpc-port', '0', ...extra],
      env,
      /"port":(\d+).*node RPC listening/,
      { cli: TEST_CLI },
    );
  const nodes: ChainProcess[] = [];
  try {
    const a = await start('a', ['--p2p-port', String(p2pA)]);
    nodes.push(a);
    await until('A producing alone', async () => (a.logs.some((l) => l.includes('single-validator block production started')) ? true : undefined));
    assert.ok(!a.logs.some((l) => l.includes('P2P listening')), 'alone and unseeded, A opens no P2P port');
    const b = await start('b', ['--p2p-port', String(p2pB), '--seeds', `127.0.0.1:${p2pA}`]);
    nodes.push(b);

    const alice = labelledWallet('grow-alice');
    const funded = await postJson(`${a.url}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
    assert.equal(funded.status, 200, JSON.stringify(funded.body));
    await waitConfirmed(a.url, funded.body.tx_hash as string);
    const body = { address: alice.address, kind: 'set_validator', validator: keyB.node_address, consensus_key: keyB.public_key, power: STAKE };
    const asked = await postJson(`${a.url}/api/v1/memo/request-update`, signOperation(alice, { actor: alice.address, target: MEMO, nonce: Date.now(), body }));
    assert.equal(asked.status, 200, JSON.stringify(asked.body));
    const added = (await waitConfirmed(a.url, asked.body.tx_hash as string)).block as number;
    const events = (await getJson(`${a.url}/api/v1/blocks/${added}/events`)).body.events as Array<{ type: string; data: Record<string, unknown> }>;
    assert.deepEqual(events.find((e) => e.type === 'validator_update')?.data.effective_height, added + 2);

    await until('A handing over to BFT', async () => (a.logs.some((l) => l.includes('BFT consensus takes over')) ? true : undefined));
    const top = added + 6;
    await until(`both nodes at height ${top}`, async () => {
      const heights = await Promise.all([a, b].map(async (n) => (await getJson(`${n.url}/health`)).body.height as number));
      return heights.every((h) => h >= top) ? true : undefined;
    }, 120_000);
    assert.ok(b.logs.some((l) => l.includes('this node is in the validator set from this height: signing') && l.includes(`"height":${added + 2}`)), 'B signs from H + 2');
    const hashes = await Promise.all([a, b].map(async (n) => (await getJson(`${n.url}/api/v1/blocks/${top}`)).body.hash));
    assert.equal(hashes[0], hashes[1], 'one chain');
    const validators = (await getJson(`${a.url}/api/v1/validators`)).body.validators as Array<{ address: string; votes_cast: number }>;
    assert.deepEqual(validators.map((v) => v.address).sort(), [keyA.node_address, keyB.node_address].sort());
    // Half the power each: every certificate from H + 2 on needs B's precommit.
    assert.ok(validators.find((v) => v.address === keyB.node_address)!.votes_cast >= top - (added + 2) + 1, JSON.stringify(validators));
  } finally {
    for (const n of nodes) await n.stop();
  }
});
