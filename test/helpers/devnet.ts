import { join } from 'node:path';
import { readKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { startDevnet, type Devnet } from '../../devnet/launcher.js';
import { freePortBlock } from './cluster.js';
import { tempDir } from './temp-dir.js';

export interface TestDevnet extends Devnet {
  readonly gatewayUrl: string;
  /** `127.0.0.1:<port>` of each validator's P2P listener (seeds for a node the test starts itself). */
  readonly p2pAddresses: string[];
  /** The key file of validator i's owner (decisions.md §13), as the launcher wrote it. */
  validatorKey(i: number): ReturnType<typeof readKeyFile>;
}

/**
 * A real `chain devnet` (validator processes and a gateway on loopback) for integration tests
 * that talk to it as a client would; short block times, no faucet cooldown, and node rate limits
 * out of the way unless `env` says otherwise. One per test file: scenarios share it.
 */
export async function startTestDevnet(opts: { validators?: number; env?: NodeJS.ProcessEnv; cli?: string; enablePlugins?: string[]; disablePlugins?: string[]; genesisParams?: Record<string, string>; genesisStake?: string } = {}): Promise<TestDevnet> {
  const validators = opts.validators ?? 4;
  const base = await freePortBlock(2 * validators + 1);
  const dir = tempDir('devnet-it-');
  const net = await startDevnet({
    validators,
    dir,
    reset: true,
    basePort: base,
    p2pBasePort: base + validators,
    gatewayPort: base + 2 * validators,
    env: { CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '300', CHAIN_RPC_RATE_LIMIT: '100000', FAUCET_COOLDOWN_SECS: '0', GLOBAL_RL_MAX_RPS: '100000', ...opts.env },
    log: () => undefined,
    ...(opts.cli ? { cli: opts.cli } : {}),
    ...(opts.enablePlugins ? { enablePlugins: opts.enablePlugins } : {}),
    ...(opts.disablePlugins ? { disablePlugins: opts.disablePlugins } : {}),
    ...(opts.genesisParams ? { genesisParams: opts.genesisParams } : {}),
    ...(opts.genesisStake ? { genesisStake: opts.genesisStake } : {}),
  });
  const p2pAddresses = Array.from({ length: validators }, (_, i) => `127.0.0.1:${base + validators + i}`);
  return { ...net, gatewayUrl: net.gatewayUrl!, p2pAddresses, validatorKey: (i) => readKeyFile(join(net.dir, 'keys', `validator-${i}.json`), nobleProvider) };
}
