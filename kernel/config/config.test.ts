import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, validateConfig, ConfigError } from './load.js';
import { configFromEnv } from './env.js';
import { SHIPPED_CONFIG_DIR, defaultConfigDir } from './config-dir.js';
import { tempDir } from '../../test/helpers/temp-dir.js';

function dirWith(network: string, content: unknown): string {
  const dir = tempDir('cfg-');
  writeFileSync(join(dir, `${network}.json`), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

test('layering: defaults < network file < environment < flags', () => {
  const dir = dirWith('x', { env: 'testnet', consensus: { block_ms: 300 }, rpc: { port: 1000 } });
  const c = loadConfig({ network: 'x', configDir: dir, env: { CHAIN_BLOCK_MS: '400', CHAIN_RPC_PORT: '2000' }, flags: { rpc: { port: 3000 } } });
  assert.equal(c.env, 'testnet');
  assert.equal(c.consensus.block_ms, 400, 'environment beats the file');
  assert.equal(c.rpc.port, 3000, 'flags beat the environment');
  assert.equal(c.consensus.empty_block_ms, 2000, 'default kept');
  assert.equal(c.rpc.rate_limit, 100);
});

test('the shipped network configs differ where the spec says', () => {
  const main = loadConfig({ network: 'mainnet', configDir: 'configs', env: {} });
  const testnet = loadConfig({ network: 'testnet', configDir: 'configs', env: {} });
  const devnet = loadConfig({ network: 'devnet', configDir: 'configs', env: {} });
  assert.equal(main.env, 'mainnet');
  assert.equal(main.tx.require_v3, true);
  assert.ok(!main.plugins.some((p) => p.name === 'faucet' && p.enabled));
  assert.equal(testnet.env, 'testnet');
  assert.equal(testnet.tx.require_v3, false);
  assert.ok(testnet.plugins.some((p) => p.name === 'faucet' && p.enabled));
  assert.equal(devnet.env, 'testnet');
  // Part 1: server-side derivation on test networks only with CHAIN_ALLOW_SERVER_DERIVE=true.
  assert.equal(devnet.wallet.allow_server_derive, false);
  assert.equal(loadConfig({ network: 'devnet', configDir: 'configs', env: { CHAIN_ALLOW_SERVER_DERIVE: 'true' } }).wallet.allow_server_derive, true);
});

test('a bad config stops with a message naming the field', () => {
  assert.throws(() => loadConfig({ network: 'x', configDir: dirWith('x', { consensus: { block_ms: 'fast' } }), env: {} }), (e: Error) => e instanceof ConfigError && /consensus\.block_ms/.test(e.message));
  assert.throws(() => loadConfig({ network: 'x', configDir: dirWith('x', '{oops'), env: {} }), /not valid JSON/);
  // The refusal names the layer the bad value came from: the file, the environment, the command line.
  assert.throws(() => loadConfig({ network: 'x', configDir: dirWith('x', { consensus: { block_ms: 'fast' } }), env: {} }), /invalid configuration \(.*x\.json\)/);
  assert.throws(() => loadConfig({ network: 'devnet', configDir: 'configs', env: { CHAIN_ENV: 'prod' } }), /invalid configuration \(the environment: CHAIN_\* variables\):\n\s+env:/);
  assert.throws(() => loadConfig({ network: 'devnet', configDir: 'configs', env: {}, flags: { p2p: { seeds: ['nohost'] } } }), /invalid configuration \(the command line\):\n\s+p2p\.seeds/);
  // What must be valid is the merged result: a later layer overriding an earlier one's bad value starts.
  const badSeeds = dirWith('x', { p2p: { seeds: ['nohost'] } });
  assert.throws(() => loadConfig({ network: 'x', configDir: badSeeds, env: {} }), /invalid configuration \(.*x\.json\):\n\s+p2p\.seeds: "nohost"/);
  assert.deepEqual(loadConfig({ network: 'x', configDir: badSeeds, env: {}, flags: { p2p: { seeds: ['127.0.0.1:26656'] } } }).p2p.seeds, ['127.0.0.1:26656']);
  assert.deepEqual(loadConfig({ network: 'x', configDir: badSeeds, env: { CHAIN_P2P_SEEDS: '127.0.0.1:26657' } }).p2p.seeds, ['127.0.0.1:26657']);
  // A plugin entry's defect is the file's even when a plugin variable set another entry's option.
  const twice = dirWith('x', { plugins: [{ name: 'faucet', enabled: true }, { name: 'staking', enabled: true }, { name: 'staking', enabled: true }] });
  for (const env of [{}, { FAUCET_AMOUNT: '5' }]) assert.throws(() => loadConfig({ network: 'x', configDir: twice, env }), /invalid configuration \(.*x\.json\):\n\s+plugins: "staking" is listed twice/);
  const unnamed = dirWith('x', { plugins: [{ name: 'faucet', enabled: true }, { name: 5 }] });
  assert.throws(() => loadConfig({ network: 'x', configDir: unnamed, env: { FAUCET_AMOUNT: '5' } }), /invalid configuration \(.*x\.json\):\n\s+plugins\.1\.name/);
  assert.throws(() => loadConfig({ network: 'nope', configDir: 'configs', env: {} }), /no config for network "nope"/);
  assert.throws(() => validateConfig({ surprise: 1 }), /surprise|additional/i);
  assert.throws(() => validateConfig({ plugins: [{ name: 'a' }, { name: 'a' }] }), /listed twice/);
  assert.throws(() => configFromEnv({ CHAIN_BLOCK_MS: 'soon' }), /CHAIN_BLOCK_MS="soon": expected an integer/);
  assert.throws(() => configFromEnv({ CHAIN_REQUIRE_TX_V3: 'maybe' }), /CHAIN_REQUIRE_TX_V3/);
});

test('spec variables map onto the config', () => {
  const c = configFromEnv({ CHAIN_ENV: 'testnet', CORS_ALLOWED_ORIGINS: 'https://a.example', CHAIN_REQUIRE_TX_V3: '1', CHAIN_JAIL_BLOCKS: '50', CHAIN_P2P_SEEDS: 'a:1, b:2' });
  assert.deepEqual(c, { env: 'testnet', rpc: { cors_allowed_origins: 'https://a.example' }, tx: { require_v3: true }, param_overrides: { jail_blocks: '50' }, p2p: { seeds: ['a:1', 'b:2'] } });
});

test('FAUCET_AMOUNT sets the faucet\'s default amount, in ucoin or COIN; a bad value is named', () => {
  const faucetOf = (env: NodeJS.ProcessEnv, network = 'testnet'): unknown => loadConfig({ network, configDir: 'configs', env }).plugins.find((p) => p.name === 'faucet')?.options;
  assert.deepEqual(faucetOf({}), { default_amount: 50_000_000 }, 'the network file\'s 50 COIN');
  assert.deepEqual(faucetOf({ FAUCET_AMOUNT: '7000000' }), { default_amount: 7_000_000 });
  assert.deepEqual(faucetOf({ FAUCET_AMOUNT: '2.5 COIN' }), { default_amount: 2_500_000 });
  assert.deepEqual(faucetOf({ FAUCET_AMOUNT: '12COIN' }), { default_amount: 12_000_000 });
  assert.equal(faucetOf({ FAUCET_AMOUNT: '7000000' }, 'mainnet'), undefined, 'mainnet lists no faucet: nothing to set');
  for (const bad of ['', 'lots', '0', '-5', '1.5', '0.0000001 COIN', '9007199254740992']) {
    assert.throws(() => loadConfig({ network: 'testnet', configDir: 'configs', env: { FAUCET_AMOUNT: bad } }), (e: Error) => e instanceof ConfigError && e.message.startsWith(`FAUCET_AMOUNT="${bad}": expected a positive amount`), bad);
  }
  assert.throws(() => loadConfig({ network: 'mainnet', configDir: 'configs', env: { FAUCET_AMOUNT: 'lots' } }), /FAUCET_AMOUNT="lots"/, 'checked where no plugin takes it too');
});

test('CHAIN_RPC_TRUSTED_IPS lists the clients rate_limit does not count; a bad entry is named', () => {
  assert.deepEqual(loadConfig({ network: 'devnet', configDir: 'configs', env: {} }).rpc.trusted_ips, [], 'nobody by default');
  const c = loadConfig({ network: 'devnet', configDir: 'configs', env: { CHAIN_RPC_TRUSTED_IPS: ' 10.0.0.5, 10.1.0.0/16 ,fd00::/8,' } });
  assert.deepEqual(c.rpc.trusted_ips, ['10.0.0.5', '10.1.0.0/16', 'fd00::/8']);
  for (const bad of ['gateway', '10.0.0.0/33', '10.0.0.5, 300.1.1.1']) {
    assert.throws(() => configFromEnv({ CHAIN_RPC_TRUSTED_IPS: bad }), (e: Error) => e instanceof ConfigError && e.message.startsWith(`CHAIN_RPC_TRUSTED_IPS="${bad}": "`) && /is not an IP address or CIDR range/.test(e.message), bad);
  }
  assert.throws(() => loadConfig({ network: 'x', configDir: dirWith('x', { rpc: { trusted_ips: ['10.0.0.1', 'nope'] } }), env: {} }), (e: Error) => e instanceof ConfigError && /rpc\.trusted_ips: "nope" is not an IP address or CIDR range/.test(e.message));
});

test('a home is a layer between the network file and the environment: its key, genesis, data folder and node.json', () => {
  const home = tempDir('home-');
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(join(home, 'config', 'node.json'), JSON.stringify({ network: 'testnet', moniker: 'alpha', rpc: { port: 19933 }, p2p: { host: '10.0.0.5', external: 'alpha.example:26656', seeds: [`${'ab'.repeat(20)}@10.0.0.6:26656`, '10.0.0.7:26656'] }, genesis_hash: `0x${'cd'.repeat(32)}` }));
  const c = loadConfig({ home, configDir: 'configs', env: {} });
  assert.equal(c.network, 'testnet', 'the network node.json names');
  assert.equal(c.env, 'testnet');
  assert.deepEqual([c.key_file, c.genesis_file, c.data_dir], [join(home, 'keys', 'validator.json'), join(home, 'config', 'genesis.json'), join(home, 'data')]);
  assert.deepEqual([c.moniker, c.rpc.port, c.p2p.host, c.p2p.external, c.genesis_hash], ['alpha', 19933, '10.0.0.5', 'alpha.example:26656', `0x${'cd'.repeat(32)}`]);
  const viaEnv = loadConfig({ configDir: 'configs', env: { CHAIN_HOME: home, CHAIN_RPC_PORT: '20000', CHAIN_GENESIS_HASH: `0x${'ef'.repeat(32)}`, CHAIN_P2P_EXTERNAL: '1.2.3.4:5' } });
  assert.deepEqual([viaEnv.rpc.port, viaEnv.genesis_hash, viaEnv.p2p.external, viaEnv.moniker], [20000, `0x${'ef'.repeat(32)}`, '1.2.3.4:5', 'alpha'], 'the environment beats node.json');
  assert.equal(loadConfig({ home, network: 'devnet', configDir: 'configs', env: {} }).env, 'testnet', '--network beats node.json');
  assert.throws(() => loadConfig({ home: tempDir('empty-home-'), configDir: 'configs', env: {} }), /node\.json does not exist: make the home with "chain init/);
  writeFileSync(join(home, 'config', 'node.json'), JSON.stringify({ p2p: { seeds: ['nothex@10.0.0.6:26656'] } }));
  assert.throws(() => loadConfig({ home, configDir: 'configs', env: {} }), (e: Error) => e instanceof ConfigError && /node\.json[^]*p2p\.seeds: "nothex@10\.0\.0\.6:26656" is not <host>:<port> or <node_id>@<host>:<port>/.test(e.message));
  writeFileSync(join(home, 'config', 'node.json'), JSON.stringify({ genesis_hash: 'abc' }));
  assert.throws(() => loadConfig({ home, configDir: 'configs', env: {} }), /genesis_hash/);
  assert.throws(() => loadConfig({ network: 'devnet', configDir: 'configs', env: { CHAIN_P2P_EXTERNAL: 'no-port' } }), /p2p\.external: "no-port" is not <host>:<port>/);
});

test('network configs come from ./configs when the working directory has one, else from the build itself', () => {
  const elsewhere = tempDir('no-configs-');
  assert.equal(defaultConfigDir(elsewhere), SHIPPED_CONFIG_DIR);
  assert.ok(existsSync(join(SHIPPED_CONFIG_DIR, 'devnet.json')), 'the build ships its networks');
  mkdirSync(join(elsewhere, 'configs'));
  assert.equal(defaultConfigDir(elsewhere), join(elsewhere, 'configs'));
});
