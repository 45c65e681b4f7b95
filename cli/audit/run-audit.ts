// `chain audit`'s work, imported only when the verb runs (cli/audit-command.ts declares the verb).
import { resolveSharding } from '../../kernel/config/sharding.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig } from '../../kernel/config/load.js';
import type { NodeConfig } from '../../kernel/config/schema.js';
import { selectProvider } from '../../kernel/crypto/select-provider.js';
import { nodeIdOf } from '../../kernel/crypto/node-id.js';
import { readGenesis } from '../../kernel/node/genesis-file.js';
import { networkMinStake } from '../../kernel/node/network-min-stake.js';
import { openChain } from '../../kernel/node/open-chain.js';
import { ChainStore } from '../../kernel/store/chain-store.js';
import { FileTxTextLog } from '../../kernel/store/tx-text-log.js';
import { openChainStores } from '../../kernel/store/chain-stores.js';
import type { KvStore } from '../../kernel/state/kv.js';
import { flagsToConfig, togglePlugins } from '../node-command.js';
import { auditChain } from './replay-audit.js';
import type { Catalogue } from '../catalogue.js';

export interface AuditFlags {
  dataDir: string;
  home?: string;
  network?: string;
  configDir: string;
  genesis?: string;
  enablePlugin?: string[];
  disablePlugin?: string[];
}

/** 0 when the whole chain checks out, 1 at the first divergence (printed on stderr). */
export async function runAudit(f: AuditFlags, catalogue: Catalogue): Promise<number> {
  const dataDir = resolve(f.dataDir);
  const loaded = loadConfig({ ...(f.network ? { network: f.network } : {}), ...(f.home ? { home: f.home } : {}), configDir: f.configDir, env: process.env, flags: flagsToConfig({ configDir: f.configDir, ...(f.genesis ? { genesis: f.genesis } : {}) }) });
  const config: NodeConfig = togglePlugins(loaded, f.enablePlugin ?? [], f.disablePlugin ?? [], catalogue);
  if (!config.genesis_file) throw new ConfigError('the genesis is required: --genesis, --home or CHAIN_GENESIS_FILE');
  if (!existsSync(join(dataDir, 'chain'))) throw new ConfigError(`${dataDir} holds no chain/ (is it a node's data directory?)`);
  const { provider } = selectProvider(config.crypto.provider);
  const { doc: genesis, hash: genesisHash } = readGenesis(resolve(config.genesis_file), { minStake: networkMinStake(config, catalogue), provider });
  const log = pino({ level: 'warn' }, pino.destination(2));

  let kv: KvStore;
  try {
    kv = (await openChainStores(dataDir)).kv;
  } catch (e) {
    const err = e as Error & { cause?: Error & { code?: string } };
    // LevelDB's lock: a running node holds it.
    const locked = err.cause?.code === 'LEVEL_LOCKED' ? ' (is its node still running? stop it, or audit a copy of the directory)' : '';
    throw new ConfigError(`cannot open the stores of ${dataDir}: ${err.message}${err.cause ? `: ${err.cause.message}` : ''}${locked}`);
  }
  const source = new ChainStore(kv, { textLog: await FileTxTextLog.open(join(dataDir, 'txtext')) });
  const replayDir = mkdtempSync(join(tmpdir(), 'chain-audit-'));
  try {
    await source.load();
    if (source.firstFullHeight > 1) {
      process.stderr.write(`audit: ${dataDir} holds blocks from height ${source.firstFullHeight} only (started from a snapshot): a replay needs every block from genesis\n`);
      return 1;
    }
    // The replay is a node of its own that never serves or signs: a throwaway key, no snapshot start.
    const keys = provider.keygen(new Uint8Array(randomBytes(32)));
    const replay = await openChain({
      config: { ...config, data_dir: replayDir, consensus: { ...config.consensus, snapshot_url: undefined } },
      catalogue,
      log,
      provider,
      genesis,
      genesisHash,
      dataDir: replayDir,
      clock: Date.now,
      consensus: () => ({ round: () => 0, peers: () => [], behind: () => 0 }),
      node: { nodeId: nodeIdOf(keys.publicKey), nodeAddress: 'chain:audit.node', keys, p2pEndpoint: () => '' },
      snapshotBootstrap: false,
      // A shard's chain replays as that shard (decisions.md §71): the same genesis part and binding.
      shards: resolveSharding(config.sharding, genesis.n_shards ?? 1, resolve(config.genesis_file)).view,
    });
    try {
      const started = Date.now();
      const result = await auditChain({
        source,
        replay: replay.chain,
        provider,
        // Their supply declarations: a plugin not enabled holds nothing and emits nothing.
        plugins: catalogue.values(),
        onHeight: (h) => {
          if (h % 500 === 0) process.stderr.write(`audit: height ${h} of ${source.head.height}\n`);
        },
      });
      if (result.divergence) {
        const d = result.divergence;
        process.stderr.write(`audit FAILED at height ${d.height} (${d.check}): ${d.message}\naudit: heights 1..${result.audited} of ${result.head} check out\n`);
        return 1;
      }
      process.stdout.write(`audit ok ${genesis.chain_id}: heights 1..${result.head}: every block, commit certificate, state root and the supply check out (${Date.now() - started} ms)\n`);
      return 0;
    } finally {
      await replay.host.close();
      await replay.store.close();
      await replay.verifier.close?.();
      replay.loopMonitor.stop();
    }
  } finally {
    await source.close();
    rmSync(replayDir, { recursive: true, force: true });
  }
}
