import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getJson, makeChainDir, spawnChainProcess, until } from '../helpers/node-process.js';

/**
 * A service plugin loaded and unloaded on a running node by a config change and SIGHUP (the test
 * build's `probe`): its routes appear and disappear, a plugin that fails to load leaves the node
 * running and the log says why, unloading runs its close handlers last-registered first, and the
 * node never stops producing blocks.
 */
test('service plugins load and unload at runtime on SIGHUP; the node keeps running', async () => {
  const { dir, genesis, key } = makeChainDir();
  const configDir = join(dir, 'configs');
  mkdirSync(configDir, { recursive: true });
  copyFileSync(resolve('configs/devnet.json'), join(configDir, 'devnet.json'));
  const base = JSON.parse(readFileSync(join(configDir, 'devnet.json'), 'utf8')) as { plugins: Array<Record<string, unknown>> };
  const writeConfig = (probe: Record<string, unknown> | null): void => {
    const plugins = probe ? [...base.plugins, { name: 'probe', enabled: true, activation_height: 0, ...probe }] : base.plugins;
    writeFileSync(join(configDir, 'devnet.json'), JSON.stringify({ ...base, plugins }, null, 2));
  };
  const node = await spawnChainProcess(
    ['node', '--network', 'devnet', '--config-dir', configDir, '--data-dir', join(dir, 'data'), '--genesis', genesis, '--key', key, '--rpc-port', '0'],
    { CHAIN_LOG_LEVEL: 'info', CHAIN_MIN_VALIDATORS: '1', CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '150' },
    /"port":(\d+).*node RPC listening/,
    { cli: resolve('dist/test/fixtures/test-chain.js') },
  );
  // A gateway beside it, on the same network config: service plugins load there too.
  const gateway = await spawnChainProcess(
    ['gateway', '--network', 'devnet', '--config-dir', configDir],
    { CHAIN_LOG_LEVEL: 'info', PORT: '0', NODE_RPC_URL: node.url, POLL_NODE_INTERVAL_MS: '100', FAUCET_COOLDOWN_SECS: '0' },
    /"port":(\d+).*gateway listening/,
    { cli: resolve('dist/test/fixtures/test-chain.js') },
  );
  const height = async (): Promise<number> => (await getJson(`${node.url}/health`)).body.height as number;
  const probe = () => getJson(`${node.url}/api/v1/probe`);
  const probeViaGateway = () => getJson(`${gateway.url}/api/v1/probe`);
  const reload = async (probeEntry: Record<string, unknown> | null, logged: RegExp): Promise<void> => {
    const marks = [node.logs.length, gateway.logs.length];
    writeConfig(probeEntry);
    node.proc.kill('SIGHUP');
    gateway.proc.kill('SIGHUP');
    await until('the reload to be logged', async () => (node.logs.slice(marks[0]).some((l) => logged.test(l)) && gateway.logs.slice(marks[1]).some((l) => logged.test(l)) ? true : undefined));
  };
  const advancing = async (): Promise<void> => {
    const h = await height();
    await until('the node to keep producing blocks', async () => ((await height()) > h + 1 ? true : undefined));
    assert.equal(node.proc.exitCode, null);
  };
  try {
    assert.equal((await probe()).status, 404);

    await reload({ options: { label: 'one' } }, /service plugins reloaded/);
    const one = await until('probe to count blocks', async () => {
      const r = await probe();
      return r.status === 200 && (r.body.blocks_seen as number) >= 2 ? r.body : undefined;
    });
    assert.equal(one.label, 'one');
    const viaGateway = await probeViaGateway();
    assert.equal(viaGateway.status, 200, 'the gateway loaded it as well');
    assert.equal(viaGateway.body.label, 'one');
    await advancing();

    // A plugin that fails to load: the node keeps running and says why; its route is gone.
    await reload({ options: { label: 'broken', fail: true } }, /service plugin failed to load/);
    const why = node.logs.find((l) => l.includes('service plugin failed to load'))!;
    assert.match(why, /probe \\"broken\\" was told to fail/);
    assert.equal((await probe()).status, 404);
    await advancing();

    // Loaded again with other options: a fresh start, its own routes again.
    await reload({ options: { label: 'two' } }, /service plugins reloaded/);
    const two = await until('probe two', async () => {
      const r = await probe();
      return r.status === 200 ? r.body : undefined;
    });
    assert.equal(two.label, 'two');

    // Unloaded: close handlers last-registered first, the route answers 404.
    const mark = node.logs.length;
    await reload(null, /service plugin unloaded/);
    const closes = node.logs.slice(mark).filter((l) => l.includes('probe close handler')).map((l) => (JSON.parse(l) as { close: string }).close);
    assert.deepEqual(closes, ['registered second', 'registered first']);
    const gone = await probe();
    assert.equal(gone.status, 404);
    assert.match(String(gone.body.error), /plugin "probe" is not loaded/);
    assert.equal((await probeViaGateway()).status, 404);
    assert.equal((await getJson(`${gateway.url}/health`)).status, 200, 'the gateway keeps serving');
    await advancing();

    // A broken config file: the reload is refused, nothing changes, the node keeps running.
    writeFileSync(join(configDir, 'devnet.json'), '{ not json');
    const before = node.logs.length;
    node.proc.kill('SIGHUP');
    await until('the refused reload', async () => (node.logs.slice(before).some((l) => l.includes('reload failed')) ? true : undefined));
    await advancing();
  } finally {
    await gateway.stop();
    await node.stop();
  }
});
