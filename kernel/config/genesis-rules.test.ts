import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nobleProvider } from '../crypto/noble-provider.js';
import { deriveAddress } from '../crypto/address.js';
import { nodeIdOf } from '../crypto/node-id.js';
import { collectGenesis } from './genesis-collect.js';
import { signJoin } from './genesis-join.js';
import { GenesisRuleError, checkGenesis, checkJoin, genesisOfShard } from './genesis-rules.js';
import { shardOf } from '../crypto/fnv.js';
import type { GenesisDoc } from './genesis.js';

const keys = [1, 2, 3].map((i) => nobleProvider.keygen(new Uint8Array(32).fill(40 + i)));
const joins = keys.map((key, i) => signJoin({ chainId: 'rules', address: `chain:v${i}.node`, key, stake: 100n, p2pExternal: `10.0.0.${i}:26656`, ...(i === 2 ? { ownerKey: keys[0]! } : {}) }, nobleProvider));
const opts = { minStake: 100n, provider: nobleProvider };

function rule(doc: unknown, name: string, validator?: string): void {
  assert.throws(() => checkGenesis(doc, opts), (e: unknown) => e instanceof GenesisRuleError && e.rule === name && e.validator === validator, `${name} ${validator ?? ''}`);
}

test('collect: sorted validators and accounts, owners funded once on a test network, the same document whatever the order', () => {
  const a = collectGenesis(joins, { chainId: 'rules', genesisTime: 5, testNetwork: true, accounts: [{ address: deriveAddress(keys[1]!.publicKey), balance: 7n }] });
  const b = collectGenesis([joins[2]!, joins[0]!, joins[1]!], { chainId: 'rules', genesisTime: 5, testNetwork: true, accounts: [{ address: deriveAddress(keys[1]!.publicKey), balance: 7n }] });
  assert.deepEqual(a, b);
  assert.deepEqual(a.validators.map((v) => v.address), ['chain:v0.node', 'chain:v1.node', 'chain:v2.node']);
  assert.equal(a.validators[2]!.owner, deriveAddress(keys[0]!.publicKey), 'an owner key makes its address the owner');
  assert.equal(a.validators[0]!.p2p_endpoint, `${nodeIdOf(keys[0]!.publicKey)}@10.0.0.0:26656`);
  const owners = [deriveAddress(keys[0]!.publicKey), deriveAddress(keys[1]!.publicKey)].sort();
  assert.deepEqual(a.accounts, owners.map((address) => ({ address, balance: address === deriveAddress(keys[1]!.publicKey) ? '1000000007' : '1000000000' })), 'two distinct owners; --account adds');
  assert.deepEqual(collectGenesis(joins, { chainId: 'rules', genesisTime: 5, testNetwork: false }).accounts, [], 'mainnet funds nobody');
  assert.equal(checkGenesis(a, opts), a);
});

test('every rule names itself and the validator', () => {
  const doc = collectGenesis(joins, { chainId: 'rules', genesisTime: 5, testNetwork: false });
  const edit = (f: (d: GenesisDoc) => void): GenesisDoc => {
    const d = JSON.parse(JSON.stringify(doc)) as GenesisDoc;
    f(d);
    return d;
  };
  rule(edit((d) => d.validators.push({ ...d.validators[0]! })), 'duplicate address', 'chain:v0.node');
  rule(edit((d) => (d.validators[1]!.public_key = d.validators[0]!.public_key)), 'duplicate public_key', 'chain:v1.node');
  rule(edit((d) => (d.validators[1]!.owner = d.validators[0]!.owner)), 'owner', 'chain:v1.node');
  rule(edit((d) => delete d.validators[2]!.owner_signature), 'owner', 'chain:v2.node');
  rule(edit((d) => (d.validators[2]!.owner_signature = d.validators[2]!.signature)), 'owner_signature', 'chain:v2.node');
  rule(edit((d) => (d.validators[0]!.p2p_endpoint = '10.0.0.0:26656')), 'p2p_endpoint', 'chain:v0.node');
  rule(edit((d) => (d.validators[0]!.p2p_endpoint = d.validators[1]!.p2p_endpoint)), 'p2p_endpoint', 'chain:v0.node');
  rule(edit((d) => (d.chain_id = 'other')), 'signature', 'chain:v0.node');
  rule(edit((d) => (d.accounts = [{ address: 'chain:v0.node', balance: '1' }, { address: 'chain:v0.node', balance: '2' }])), 'duplicate account');
  rule(edit((d) => (d.validators[1]!.stake = 'lots')), 'schema', 'chain:v1.node');
  // The .node label follows §32 as chain init's --moniker does: no _, no - at an end, at most 32 characters.
  for (const label of ['v_1', 'v1-', `${'a'.repeat(33)}`]) rule(edit((d) => (d.validators[1]!.address = `chain:${label}.node`)), 'schema', `chain:${label}.node`);
  // A 32-character label fits the schema: the statement is refused only by its signature, made for another address.
  rule(edit((d) => (d.validators[1]!.address = `chain:${'a'.repeat(32)}.node`)), 'signature', `chain:${'a'.repeat(32)}.node`);
  assert.throws(() => checkGenesis(doc, { ...opts, minStake: 101n }), (e: unknown) => e instanceof GenesisRuleError && e.rule === 'stake' && e.validator === 'chain:v0.node');
  assert.equal(checkGenesis(edit((d) => (d.params = { min_stake: '100' })), { ...opts, minStake: 101n }).chain_id, 'rules', 'the genesis\'s own min_stake wins');
  assert.throws(() => checkJoin(joins[0], 'another', opts), (e: unknown) => e instanceof GenesisRuleError && e.rule === 'chain_id');
  assert.equal(new GenesisRuleError('stake', 'chain:v0.node', 'low').in('g.json').message, 'g.json: stake: validator chain:v0.node: low');
});

/** A validator of shard `shard` of 2: a `.node` that shard owns and a key whose derived owner it owns too (the devnet's rule, §77). */
function joinOnShard(shard: number, label: string, seedFrom: number) {
  const address = [`chain:${label}.node`, ...[1, 2, 3, 4, 5, 6, 7, 8].map((t) => `chain:${label}-${t}.node`)].find((a) => shardOf(a, 2) === shard)!;
  for (let seed = seedFrom; ; seed++) {
    const key = nobleProvider.keygen(new Uint8Array(32).fill(seed));
    if (shardOf(deriveAddress(key.publicKey), 2) === shard) return { key, join: signJoin({ chainId: 'rules', address, key, stake: 100n, p2pExternal: '10.0.0.9:26656' }, nobleProvider) };
  }
}

test('a sharded genesis: n_shards, each validator under the shard that owns its .node and owner; each shard starts from its own part', () => {
  const v0 = joinOnShard(0, 'sa', 60);
  const v1 = joinOnShard(1, 'sb', 120);
  const doc = collectGenesis([v1.join, v0.join], { chainId: 'rules', genesisTime: 5, testNetwork: true, nShards: 2 });
  assert.equal(doc.n_shards, 2);
  assert.deepEqual(doc.validators.map((v) => [v.address, v.shard]).sort(), [[v0.join.address, 0], [v1.join.address, 1]].sort());
  assert.equal(checkGenesis(doc, opts), doc);
  const part0 = genesisOfShard(doc, 0);
  assert.deepEqual(part0.validators.map((v) => v.address), [v0.join.address]);
  assert.deepEqual(part0.accounts.map((a) => a.address), [v0.join.owner], 'shard 0 funds only the owner it owns');
  assert.deepEqual(genesisOfShard(doc, 1).accounts.map((a) => a.address), [v1.join.owner]);
  const one = collectGenesis(joins, { chainId: 'rules', genesisTime: 5, testNetwork: true });
  assert.equal('n_shards' in one, false, 'a one-shard genesis is §82\'s document unchanged');
  assert.equal(one.validators.some((v) => 'shard' in v), false);
  assert.equal(genesisOfShard(one, 0), one);

  const edit = (f: (d: GenesisDoc) => void): GenesisDoc => {
    const d = JSON.parse(JSON.stringify(doc)) as GenesisDoc;
    f(d);
    return d;
  };
  const at = (d: GenesisDoc, address: string) => d.validators.find((v) => v.address === address)!;
  rule(edit((d) => (at(d, v0.join.address).shard = 1)), 'shard', v0.join.address);
  rule(edit((d) => delete at(d, v0.join.address).shard), 'shard', v0.join.address);
  rule(edit((d) => (at(d, v1.join.address).shard = 2)), 'shard', v1.join.address);
  rule(edit((d) => (d.validators = d.validators.filter((v) => v.address === v0.join.address))), 'shard');
  rule(edit((d) => (d.validators[0]!.shard = 1)), 'shard', d0(doc));
  assert.throws(() => checkGenesis(edit((d) => (at(d, v0.join.address).shard = 1)), opts), /belongs to shard 0, but the validator is listed under shard 1/);
  rule(edit((d) => (d.n_shards = 1)), 'shard', doc.validators.find((v) => v.shard === 1)!.address);
});

function d0(doc: GenesisDoc): string {
  return doc.validators[0]!.address;
}
