import type { Command } from 'commander';
import pino from 'pino';
import { ConfigError } from '../../kernel/config/env.js';
import { parseShardMap } from '../../kernel/config/shard-map.js';
import { runService } from '../run-service.js';
import { ShardEndpoint } from './shard-endpoint.js';
import { ShardRelayer } from './shard-relayer.js';

/** RELAY_POLL_MS's default (decisions.md §77). */
export const DEFAULT_RELAY_POLL_MS = 1000;

/** The relayer's settings from its environment: the gateway's shard map variables and RELAY_POLL_MS. */
export function relayShardsConfig(env: NodeJS.ProcessEnv): { shards: string[][]; pollMs: number } {
  const shards = parseShardMap(env.CHAIN_SHARD_NODES || undefined, env.SHARD_NODE_URLS || undefined);
  if (shards === undefined) throw new ConfigError('CHAIN_SHARD_NODES or SHARD_NODE_URLS must name the nodes of every shard (as the gateway takes them)');
  const text = env.RELAY_POLL_MS;
  const pollMs = text === undefined || text === '' ? DEFAULT_RELAY_POLL_MS : Number(text);
  if (!Number.isSafeInteger(pollMs) || pollMs < 10) throw new ConfigError(`RELAY_POLL_MS ${text}: expected an integer of at least 10 (ms)`);
  return { shards, pollMs };
}

/**
 * `chain relay-shards` (decisions.md §77; plugins/xshard/README.md for the protocol): relays
 * cross-shard transfers between the shards of one network. It holds no key: commits, acks and
 * header updates are unsigned and free. SIGINT or SIGTERM stop it after the poll under way.
 */
export async function runRelayShardsCommand(): Promise<void> {
  await runService('relay-shards', async () => {
    const { shards, pollMs } = relayShardsConfig(process.env);
    const log = pino({ name: 'chain-relay-shards', level: process.env.CHAIN_LOG_LEVEL ?? 'info' });
    const relayer = new ShardRelayer({ shards: shards.map((urls, s) => new ShardEndpoint(s, urls)), log, intervalMs: pollMs });
    log.info({ shards: shards.map((urls, shard) => ({ shard, nodes: urls })), poll_ms: pollMs }, 'relay-shards starting');
    relayer.start();
    return {
      log,
      async stop() {
        await relayer.stop();
        log.info('relay-shards stopped');
      },
    };
  });
}

export function registerRelayShardsCommand(program: Command): void {
  program
    .command('relay-shards')
    .description('relay cross-shard transfers between the shards of a network: commits, aborts, acks and header updates; keyless (decisions.md §77). Shard map from CHAIN_SHARD_NODES or SHARD_NODE_URLS, poll interval RELAY_POLL_MS (default 1000)')
    .action(() => runRelayShardsCommand());
}
