import { ConfigError, loadConfig } from '../kernel/config/load.js';
import { setPath } from '../kernel/config/env.js';
import { startNode } from '../kernel/node/node.js';
import { runService } from './run-service.js';
import type { NodeConfig } from '../kernel/config/schema.js';
import type { Catalogue } from './catalogue.js';

export interface NodeFlags {
  network?: string;
  configDir: string;
  home?: string;
  genesisHash?: string;
  p2pHost?: string;
  p2pExternal?: string;
  dataDir?: string;
  genesis?: string;
  key?: string;
  rpcHost?: string;
  rpcPort?: string;
  p2pPort?: string;
  seeds?: string;
  logLevel?: string;
  snapshotFrom?: string;
  enablePlugin?: string[];
  disablePlugin?: string[];
}

function intFlag(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`--${name} must be an integer, got "${raw}"`);
  return Number(raw);
}

/** Flags are the last config layer: they override the file and the environment. */
export function flagsToConfig(f: NodeFlags): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (f.dataDir) setPath(out, ['data_dir'], f.dataDir);
  if (f.genesis) setPath(out, ['genesis_file'], f.genesis);
  if (f.key) setPath(out, ['key_file'], f.key);
  if (f.rpcHost) setPath(out, ['rpc', 'host'], f.rpcHost);
  if (f.rpcPort) setPath(out, ['rpc', 'port'], intFlag('rpc-port', f.rpcPort));
  if (f.p2pPort) setPath(out, ['p2p', 'port'], intFlag('p2p-port', f.p2pPort));
  if (f.p2pHost) setPath(out, ['p2p', 'host'], f.p2pHost);
  if (f.p2pExternal) setPath(out, ['p2p', 'external'], f.p2pExternal);
  if (f.genesisHash) setPath(out, ['genesis_hash'], f.genesisHash);
  if (f.seeds) setPath(out, ['p2p', 'seeds'], f.seeds.split(',').map((s) => s.trim()).filter(Boolean));
  if (f.logLevel) setPath(out, ['log_level'], f.logLevel);
  if (f.snapshotFrom) setPath(out, ['consensus', 'snapshot_url'], f.snapshotFrom);
  return out;
}

/**
 * --enable-plugin / --disable-plugin: switch plugins of the catalogue on or off for this process
 * (devnet users trying experimental features). A plugin not in the network's list is appended.
 */
export function togglePlugins(config: NodeConfig, enable: string[], disable: string[], catalogue: Catalogue): NodeConfig {
  const plugins = config.plugins.map((p) => ({ ...p }));
  for (const name of enable) {
    if (!catalogue.has(name)) throw new ConfigError(`--enable-plugin ${name}: no such plugin (known: ${[...catalogue.keys()].sort().join(', ')})`);
    const p = plugins.find((x) => x.name === name);
    if (p) p.enabled = true;
    else plugins.push({ name, enabled: true, activation_height: 0, options: {} });
  }
  for (const name of disable) {
    const p = plugins.find((x) => x.name === name);
    if (!p) throw new ConfigError(`--disable-plugin ${name}: not in this network's plugin list`);
    p.enabled = false;
  }
  return { ...config, plugins };
}

export async function runNodeCommand(flags: NodeFlags, catalogue: Catalogue): Promise<void> {
  const config = (): NodeConfig => togglePlugins(loadConfig({ ...(flags.network ? { network: flags.network } : {}), ...(flags.home ? { home: flags.home } : {}), configDir: flags.configDir, env: process.env, flags: flagsToConfig(flags) }), flags.enablePlugin ?? [], flags.disablePlugin ?? [], catalogue);
  await runService('node', async () => {
    const node = await startNode(config(), catalogue);
    // SIGHUP: the same layers re-read (configs/<network>.json, environment, flags); service plugins
    // follow the new list, state plugins switch only by governance.
    return { log: node.log, stop: () => node.stop(), fault: node.fault, reload: async () => void (await node.reloadServices(config().plugins)) };
  });
}
