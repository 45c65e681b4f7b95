import { resolve } from 'node:path';
import { ConfigError } from '../kernel/config/env.js';
import { DEVNET_CHAIN_ID, startDevnet } from '../devnet/launcher.js';
import type { Catalogue } from './catalogue.js';
import { runTopUntilSignal } from './top/command.js';

export interface DevnetFlags {
  validators: string;
  shards: string;
  dir: string;
  reset: boolean;
  chainId?: string;
  basePort: string;
  p2pBasePort: string;
  gatewayPort: string;
  gateway: boolean;
  relay: boolean;
  watch: boolean;
  enablePlugin: string[];
  disablePlugin: string[];
}

export async function runDevnetCommand(o: DevnetFlags, catalogue: Catalogue): Promise<void> {
  for (const name of o.enablePlugin) {
    if (!catalogue.has(name)) throw new ConfigError(`--enable-plugin ${name}: no such plugin (known: ${[...catalogue.keys()].sort().join(', ')})`);
  }
  const validators = Number(o.validators);
  if (!Number.isInteger(validators) || validators < 1 || validators > 64) throw new Error('--validators must be an integer from 1 to 64');
  const shards = Number(o.shards);
  if (!Number.isInteger(shards) || shards < 1 || shards * validators > 64) throw new Error('--shards must be an integer from 1 with at most 64 validators in all');
  // The processes run the binary this command runs, so a build with another catalogue (a test
  // build's) gets validators and a gateway that have the same plugins.
  if (o.chainId !== undefined && !DEVNET_CHAIN_ID.test(o.chainId)) throw new ConfigError(`--chain-id "${o.chainId}": expected 1 to 64 of a-z, 0-9 and - (decisions.md §63)`);
  const devnet = await startDevnet({ validators, shards, dir: o.dir, reset: o.reset, ...(o.chainId !== undefined ? { chainId: o.chainId } : {}), basePort: Number(o.basePort), p2pBasePort: Number(o.p2pBasePort), gatewayPort: o.gateway ? Number(o.gatewayPort) : null, relay: o.relay, enablePlugins: o.enablePlugin, disablePlugins: o.disablePlugin, cli: resolve(process.argv[1]!) });
  const stop = (): void => {
    process.stdout.write('stopping devnet...\n');
    devnet.stop().then(() => process.exit(0));
  };
  if (o.watch) {
    // The view runs until Ctrl-C or SIGTERM, then the devnet stops as it would without it.
    await runTopUntilSignal(devnet.rpcUrls, 1000);
    return stop();
  }
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  for (const [i, child] of devnet.nodes.entries()) {
    const name = i < validators * shards ? `validator-${i}` : child === devnet.relay ? 'relay-shards' : 'gateway';
    child.once('exit', (code, signal) => process.stdout.write(`${name} exited (${signal ?? code})\n`));
  }
}
