import { join } from 'node:path';
import { reapChildrenOnExit } from './child-reaper.js';
import { readKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { startDevnet, type Devnet } from '../../devnet/launcher.js';
import { freePortBlock } from './cluster.js';
import { tempDir } from './temp-dir.js';
import { fileLog, registerNetworkLogs } from './process-logs.js';
import { setSigningChainId } from './chain-fixture.js';
import assert from 'node:assert/strict';
import { getJson, postJson, waitConfirmed } from './node-process.js';

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
export async function startTestDevnet(opts: { validators?: number; shards?: number; chainId?: string; env?: NodeJS.ProcessEnv; cli?: string; enablePlugins?: string[]; disablePlugins?: string[]; genesisParams?: Record<string, string>; genesisStake?: string; relay?: boolean } = {}): Promise<TestDevnet> {
  reapChildrenOnExit();
  const validators = opts.validators ?? 4;
  // With shards, `validators` per shard (decisions.md §77): the processes are shards × validators.
  const total = validators * (opts.shards ?? 1);
  const base = await freePortBlock(2 * total + 1);
  const dir = tempDir('devnet-it-');
  const net = await startDevnet({
    validators,
    ...(opts.shards !== undefined ? { shards: opts.shards } : {}),
    dir,
    reset: true,
    basePort: base,
    p2pBasePort: base + total,
    gatewayPort: base + 2 * total,
    // NODE_TIMEOUT_MS: a node's first deploy loads Binaryen into its contract thread, 2.5 s on a
    // quiet machine and past 15 s under the suite's load (two devnets on two cores). At the
    // gateway's 5 s default the submission is answered 503 (the node did not answer in time): the
    // node is only slow, and these tests time nothing.
    // CHAIN_VERIFY_WORKERS 1: one verify thread per validator beside the consensus signer's, as four validators share two cores; each further thread only costs its start.
    env: { CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '300', CHAIN_RPC_RATE_LIMIT: '100000', CHAIN_VERIFY_WORKERS: '1', FAUCET_COOLDOWN_SECS: '0', GLOBAL_RL_MAX_RPS: '100000', NODE_TIMEOUT_MS: '30000', ...opts.env },
    log: () => undefined,
    ...(opts.cli ? { cli: opts.cli } : {}),
    ...(opts.chainId ? { chainId: opts.chainId } : {}),
    ...(opts.enablePlugins ? { enablePlugins: opts.enablePlugins } : {}),
    ...(opts.disablePlugins ? { disablePlugins: opts.disablePlugins } : {}),
    ...(opts.genesisParams ? { genesisParams: opts.genesisParams } : {}),
    ...(opts.genesisStake ? { genesisStake: opts.genesisStake } : {}),
    ...(opts.relay !== undefined ? { relay: opts.relay } : {}),
  });
  registerNetworkLogs(net.rpcUrls, [...net.rpcUrls.map((_, i) => fileLog(`validator-${i}`, join(net.dir, `validator-${i}.log`))), ...(net.gatewayUrl ? [fileLog('gateway', join(net.dir, 'gateway.log'))] : [])]);
  const p2pAddresses = Array.from({ length: total }, (_, i) => `127.0.0.1:${base + total + i}`);
  // The signing helpers name this chain in ch-tx-v4 (decisions.md §94: GET /api/v1/status chain_id).
  setSigningChainId(String((await getJson(`${net.rpcUrls[0]}/api/v1/status`)).body.chain_id));
  return { ...net, gatewayUrl: net.gatewayUrl!, p2pAddresses, validatorKey: (i) => readKeyFile(join(net.dir, 'keys', `validator-${i}.json`), nobleProvider) };
}

/**
 * Puts a signed body straight into every validator's pool through the test build's
 * `POST /test/inject` (a proposer that skipped checkTx) and waits until every validator applied
 * the block that carried it: it must have failed there with an error matching `re`. `opName`
 * sends an operation's body as its transaction envelope.
 */
export async function failsInBlock(net: Pick<TestDevnet, 'rpcUrls'>, body: Record<string, unknown>, re: RegExp, opName?: string): Promise<Record<string, unknown>> {
  const envelope = opName === undefined ? body : { ...body, _op: opName };
  let hash = '';
  for (const url of net.rpcUrls) hash = (await postJson(`${url}/test/inject`, envelope)).body.injected as string;
  // Every validator has applied the block before the caller reads nonces or balances.
  let tx: Record<string, unknown> = {};
  for (const url of net.rpcUrls) tx = await waitConfirmed(url, hash);
  assert.equal(tx.status, 'failed', JSON.stringify(tx));
  assert.match(tx.error as string, re);
  return tx;
}

/** Every validator holds the same state root at the lowest height they all reached. */
export async function sameRootEverywhere(net: Pick<TestDevnet, 'rpcUrls'>): Promise<void> {
  const h = Math.min(...(await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/health`)).body.height as number))));
  const roots = await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/api/v1/blocks/${h}`)).body.state_root));
  assert.equal(new Set(roots).size, 1, `state roots at height ${h}: ${roots.join(', ')}`);
}
