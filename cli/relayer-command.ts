import type { Command } from 'commander';
import pino, { type Logger } from 'pino';
import { readKeyFile, type LoadedKey } from '../kernel/crypto/keyfile.js';
import type { OperationRegistry } from '../kernel/ops/registry.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { ConfigError } from '../kernel/config/env.js';
import { operationRegistryOf } from './client/operation-body.js';
import { ChainEndpoint } from './relayer/chain-endpoint.js';
import { Relayer } from './relayer/relayer.js';
import { runService } from './run-service.js';
import type { Catalogue, CatalogueSource } from './catalogue.js';

export interface RelayerFlags {
  readonly a: string;
  readonly b: string;
  readonly key: string;
  readonly intervalMs: string;
}

/**
 * `chain relayer` (decisions.md §70; the operator's guide is plugins/ibc/README.md "Joining two
 * chains"): relays IBC packets between the chains at `--a` and `--b` with one key that is an
 * operator on both and pays the fees on both. SIGINT or SIGTERM stop it after the poll under way.
 */
export async function runRelayerCommand(f: RelayerFlags, catalogue: Catalogue): Promise<void> {
  await runService('relayer', async () => {
    const intervalMs = Number(f.intervalMs);
    if (!Number.isSafeInteger(intervalMs) || intervalMs < 10) throw new ConfigError(`--interval-ms ${f.intervalMs}: expected an integer of at least 10`);
    let key: LoadedKey;
    try {
      key = readKeyFile(f.key, nobleProvider);
    } catch (e) {
      throw new ConfigError(`--key: ${(e as Error).message}`);
    }
    const log = pino({ name: 'chain-relayer', level: process.env.CHAIN_LOG_LEVEL ?? 'info' });
    const registry = operationRegistryOf(catalogue);
    const [a, b] = await Promise.all([connected(f.a, key, registry, log), connected(f.b, key, registry, log)]);
    if (a.chainId === b.chainId) throw new ConfigError(`--a and --b are the same chain (${a.chainId})`);
    log.info({ a: { url: a.url, chain_id: a.chainId }, b: { url: b.url, chain_id: b.chainId }, operator: key.file.address, interval_ms: intervalMs }, 'relayer starting');
    const relayer = new Relayer({ a, b, log, intervalMs });
    relayer.start();
    return {
      log,
      async stop() {
        await relayer.stop();
        log.info('relayer stopped');
      },
    };
  });
}

/** A chain's endpoint once its node answers: a relayer may start before the chains it joins. */
async function connected(url: string, key: LoadedKey, registry: OperationRegistry, log: Logger): Promise<ChainEndpoint> {
  for (let delay = 500; ; delay = Math.min(30_000, delay * 2)) {
    try {
      return await ChainEndpoint.connect(url, key, registry);
    } catch (e) {
      log.warn({ url, err: (e as Error).message, retry_in_ms: delay }, 'cannot read the chain yet');
      await new Promise((res) => setTimeout(res, delay));
    }
  }
}

export function registerRelayerCommand(program: Command, catalogue: CatalogueSource): void {
  program
    .command('relayer')
    .description('relay IBC packets, acknowledgements and timeouts between two chains, with their light clients (decisions.md §70)')
    .requiredOption('--a <rpc>', 'RPC URL of a node of the first chain (a node: the gateway does not serve state proofs)')
    .requiredOption('--b <rpc>', 'RPC URL of a node of the second chain')
    .requiredOption('--key <file>', 'key file of an IBC operator of both chains; it pays the fees on both (chain keys generate --out)')
    .option('--interval-ms <ms>', 'time between polls', '1000')
    .action(async (f: RelayerFlags) => runRelayerCommand(f, await catalogue()));
}
