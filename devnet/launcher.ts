import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync, readFileSync, createWriteStream } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { makeKeyFile, readKeyFile, writeKeyFile, type KeyFile, type LoadedKey } from '../kernel/crypto/keyfile.js';
import { shardView } from '../kernel/crypto/shard.js';
import { NODE_V8_FLAGS } from '../kernel/node/v8-flags.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import type { GenesisDoc } from '../kernel/config/genesis.js';
import { signJoin } from '../kernel/config/genesis-join.js';
import { collectGenesis } from '../kernel/config/genesis-collect.js';

export interface DevnetOptions {
  /** Validators per shard (decisions.md §13; §77 with `shards`). */
  validators: number;
  /** Shards (decisions.md §77): n × validators processes, one genesis; 1 or absent is §13's devnet. */
  shards?: number;
  dir: string;
  reset: boolean;
  /** The chain id of a new folder's genesis (decisions.md §63); `devnet-` + 6 random hex when absent. */
  chainId?: string;
  basePort: number;
  /** P2P port of validator 0; validator i listens on p2pBasePort + i. */
  p2pBasePort: number;
  /** Gateway port (decisions.md §13: 3000); null starts no gateway. */
  gatewayPort: number | null;
  /** With shards > 1: start one `chain relay-shards` on the gateway's shard map (decisions.md §77); false starts none (`--no-relay`). Default true. */
  relay?: boolean;
  /** Plugins switched on or off for this devnet (experimental features such as IBC or vaults). */
  enablePlugins?: string[];
  disablePlugins?: string[];
  /** The `chain` binary the processes run (a test build's has its test plugins); the shipped one by default. */
  cli?: string;
  /** Extra environment for every node (tests shorten block times this way). */
  env?: NodeJS.ProcessEnv;
  /** Parameters written into a new chain's genesis (they take precedence over the network's overrides). */
  genesisParams?: Record<string, string>;
  /** Each genesis validator's stake in ucoin; 10 000 COIN (the default min_stake) when absent. */
  genesisStake?: string;
  log?: (line: string) => void;
}

export interface Devnet {
  readonly dir: string;
  /** Validator k's RPC URL; in a sharded devnet validator k = s·v + i is the i-th of shard s (decisions.md §77). */
  readonly rpcUrls: string[];
  /** Shards of the devnet (1 unsharded). */
  readonly shards: number;
  readonly gatewayUrl: string | null;
  /** Every process the devnet started: the validators, then the gateway and the relayer when started. */
  readonly nodes: ChildProcess[];
  /** The `chain relay-shards` process of a sharded devnet (its pid in `<dir>/relay.pid`), null when none runs. */
  readonly relay: ChildProcess | null;
  /**
   * The variables every node of this network must start with to compute its genesis state
   * (the IBC operator list, plugins/ibc/README.md): a node joining later (a new validator) takes them too.
   */
  readonly networkEnv: Readonly<Record<string, string>>;
  stop(): Promise<void>;
  /** Stops validator i (SIGTERM) and waits for it to exit; its data stays. */
  stopValidator(i: number): Promise<void>;
  /** Starts validator i again on its data (it catches up from its peers); resolves once it answers. */
  startValidator(i: number): Promise<void>;
}

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../cli/main.js');
/** 10 000 COIN: the default min_stake, so genesis validators hold real voting power. */
const GENESIS_STAKE = 10_000_000_000n;
/**
 * The loopback address the devnet's gateway connects to validators from (decisions.md §93): a
 * host of its own, as far as the nodes' per-IP limit can tell. Linux routes all of 127.0.0.0/8 to
 * loopback; elsewhere the address may need adding to the loopback interface.
 */
export const GATEWAY_SOURCE_ADDRESS = '127.0.0.2';

/** A devnet's chain id (decisions.md §63): 1 to 64 of a-z, 0-9 and -. */
export const DEVNET_CHAIN_ID = /^[a-z0-9-]{1,64}$/;

/** Folder already holding a chain of another id than the one asked for: refused naming both. */
export class DevnetChainIdError extends Error {
  constructor(dir: string, held: string, asked: string) {
    super(`${dir} holds the chain "${held}", not "${asked}": pass --chain-id ${held}, another --dir, or --reset to start "${asked}" there`);
    this.name = 'DevnetChainIdError';
  }
}

/**
 * Keys and genesis on first start; reused afterwards so a restarted devnet continues its chain.
 * The genesis is made as operators on separate hosts make theirs (decisions.md §82): each
 * validator key signs a join statement (owned by its own `.human`, endpoint on loopback) and the
 * one builder collects them; the file passes `chain genesis validate`.
 */
export function prepareDevnet(o: Pick<DevnetOptions, 'validators' | 'shards' | 'dir' | 'reset' | 'chainId' | 'genesisParams' | 'genesisStake'> & { p2pEndpoint?: (i: number) => string }): { genesisFile: string; keyFiles: string[] } {
  const dir = resolve(o.dir);
  if (o.reset) rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'keys'), { recursive: true });
  const shards = o.shards ?? 1;
  const total = shards * o.validators;
  const genesisFile = join(dir, 'genesis.json');
  const keyFiles = Array.from({ length: total }, (_, k) => join(dir, 'keys', `validator-${k}.json`));
  if (existsSync(genesisFile)) {
    const g = JSON.parse(readFileSync(genesisFile, 'utf8')) as GenesisDoc;
    if (o.chainId !== undefined && g.chain_id !== o.chainId) throw new DevnetChainIdError(dir, g.chain_id, o.chainId);
    if (g.validators.length !== total || (g.n_shards ?? 1) !== shards) throw new Error(`${dir} holds a devnet of ${g.n_shards ?? 1} shard(s) and ${g.validators.length} validator(s); pass the same --shards and --validators or --reset`);
    return { genesisFile, keyFiles };
  }
  const chainId = o.chainId ?? `devnet-${randomBytes(3).toString('hex')}`;
  const endpoint = o.p2pEndpoint ?? ((i: number) => `127.0.0.1:${26656 + i}`);
  const joins = keyFiles.map((file, k) => {
    const shard = Math.floor(k / o.validators);
    const k2 = existsSync(file) ? readKeyFile(file, nobleProvider) : shardKey(k, shard, shards);
    if (!existsSync(file)) writeKeyFile(file, shards > 1 ? ({ ...k2.file, shard } as KeyFile) : k2.file);
    return signJoin({ chainId, address: k2.file.node_address ?? `chain:validator-${k}.node`, key: k2.keys, stake: o.genesisStake !== undefined ? BigInt(o.genesisStake) : GENESIS_STAKE, p2pExternal: endpoint(k) }, nobleProvider);
  });
  // decisions.md §14: each validator's owner gets 1 000 COIN (a test network's collect does that),
  // so validators can pay the fees of their own operations; clients get coins from the faucet.
  const genesis = collectGenesis(joins, { chainId, genesisTime: Date.now(), testNetwork: true, params: { ...(o.genesisParams ?? {}) }, nShards: shards });
  writeFileSync(genesisFile, JSON.stringify(genesis, null, 2) + '\n');
  return { genesisFile, keyFiles };
}

/**
 * Validator k's key, of shard `shard` of `shards` (decisions.md §77): `chain:validator-<k>.node`
 * when that shard owns it, else `chain:validator-<k>-<t>.node` for the least t ≥ 1 it owns; the
 * key drawn again until its owner (the key's `.human`) belongs to the shard too. One shard: §13.
 */
export function shardKey(k: number, shard: number, shards: number, draw: () => Uint8Array = () => new Uint8Array(randomBytes(32))): LoadedKey {
  const view = shardView(shard, shards);
  let label = `validator-${k}`;
  for (let t = 1; !view.owns(`chain:${label}.node`); t++) label = `validator-${k}-${t}`;
  for (;;) {
    const key = makeKeyFile(nobleProvider, draw(), label);
    if (view.owns(key.file.address)) return key;
  }
}

/** The last lines of a process's log, for an error that would otherwise only say "see its log" (the folder of a test devnet is gone by the time anyone looks). */
function logTail(logPath: string, lines = 12): string {
  try {
    const tail = readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    return `\n--- last lines of ${logPath} ---\n${tail}`;
  } catch {
    return '';
  }
}

async function waitForFirstBlock(url: string, child: ChildProcess, timeoutMs: number, logPath: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`node at ${url} exited with code ${child.exitCode}${logTail(logPath)}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok && ((await res.json()) as { height: number }).height >= 1) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no block committed at ${url} within ${timeoutMs} ms${logTail(logPath)}`);
}

async function waitForGateway(url: string, child: ChildProcess, timeoutMs: number, logPath: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited with code ${child.exitCode}${logTail(logPath)}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gateway at ${url} did not answer within ${timeoutMs} ms`);
}

/** A `chain` verb as a child process, its output appended to `logPath`. */
function spawnLogged(cli: string, args: string[], env: NodeJS.ProcessEnv, logPath: string): ChildProcess {
  const logFile = createWriteStream(logPath, { flags: 'a' });
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(logFile);
  child.stderr!.pipe(logFile);
  return child;
}

/** Starts every validator process (decisions.md §13) and resolves once the first block is committed. */
export async function startDevnet(o: DevnetOptions): Promise<Devnet> {
  const dir = resolve(o.dir);
  const { genesisFile, keyFiles } = prepareDevnet({ ...o, p2pEndpoint: (i) => `127.0.0.1:${o.p2pBasePort + i}` });
  const log = o.log ?? ((l: string) => process.stdout.write(l + '\n'));
  const shards = o.shards ?? 1;
  const total = shards * o.validators;
  const shardOfValidator = (k: number): number => Math.floor(k / o.validators);
  const nodes: ChildProcess[] = [];
  const rpcUrls: string[] = [];
  // decisions.md §63: the devnet's own validator-0 key acts as IBC operator, beside what the environment lists.
  const validator0Key = (JSON.parse(readFileSync(keyFiles[0]!, 'utf8')) as { public_key: string }).public_key;
  const ibcOperators = [...(o.env?.['CHAIN_IBC_OPERATOR_PUBKEYS'] ?? process.env['CHAIN_IBC_OPERATOR_PUBKEYS'] ?? '').split(',').map((k) => k.trim()).filter((k) => k.length > 0), validator0Key].join(',');
  const spawnValidator = (i: number): ChildProcess => {
    const port = o.basePort + i;
    const p2pPort = o.p2pBasePort + i;
    // Every validator knows every other's P2P address of its shard; peer exchange would also find them from one.
    const seeds = Array.from({ length: total }, (_, j) => j)
      .filter((j) => j !== i && shardOfValidator(j) === shardOfValidator(i))
      .map((j) => `127.0.0.1:${o.p2pBasePort + j}`)
      .join(',');
    const logFile = createWriteStream(join(dir, `validator-${i}.log`), { flags: 'a' });
    const child = spawn(
      process.execPath,
      [...NODE_V8_FLAGS, o.cli ?? CLI, 'node', '--network', 'devnet', '--data-dir', join(dir, `node-${i}`), '--genesis', genesisFile, '--key', keyFiles[i]!, '--rpc-port', String(port), '--p2p-port', String(p2pPort), ...(seeds ? ['--seeds', seeds] : []), ...(o.enablePlugins ?? []).flatMap((p) => ['--enable-plugin', p]), ...(o.disablePlugins ?? []).flatMap((p) => ['--disable-plugin', p])],
      // decisions.md §93: the gateway reaches every validator from its own loopback address, and
      // only that address is exempt from the node's per-IP limit; every other local client (a
      // script, a benchmark, the CLI) meets the node's limit as it would from another host.
      // decisions.md §77: CHAIN_SHARDS, CHAIN_SHARD_ID and CHAIN_MIN_VALIDATORS = validators per shard.
      { env: { ...process.env, CHAIN_MIN_VALIDATORS: String(o.validators), CHAIN_RPC_TRUSTED_IPS: GATEWAY_SOURCE_ADDRESS, ...(shards > 1 ? { CHAIN_SHARDS: String(shards), CHAIN_SHARD_ID: String(shardOfValidator(i)) } : {}), ...o.env, CHAIN_IBC_OPERATOR_PUBKEYS: ibcOperators }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.pipe(logFile);
    child.stderr!.pipe(logFile);
    return child;
  };
  for (let i = 0; i < total; i++) {
    nodes.push(spawnValidator(i));
    rpcUrls.push(`http://127.0.0.1:${o.basePort + i}`);
  }
  const stopChild = (c: ChildProcess): Promise<void> =>
    new Promise<void>((res) => {
      if (c.exitCode !== null || c.signalCode !== null) return res();
      c.once('exit', () => res());
      c.kill('SIGTERM');
    });
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map(stopChild));
    rmSync(relayPidFile, { force: true });
  };
  const stopValidator = (i: number): Promise<void> => stopChild(nodes[i]!);
  const startValidator = async (i: number): Promise<void> => {
    if (nodes[i]!.exitCode === null && nodes[i]!.signalCode === null) throw new Error(`validator-${i} is running`);
    nodes[i] = spawnValidator(i);
    await waitForFirstBlock(rpcUrls[i]!, nodes[i]!, 60_000, join(dir, `validator-${i}.log`));
  };
  let gatewayUrl: string | null = null;
  let relay: ChildProcess | null = null;
  // The gateway fails over across every validator of a shard, and routes by owner (decisions.md §73, §77); the relayer takes the same map.
  const shardNodes = Array.from({ length: shards }, (_, sh) => `${sh}=${rpcUrls.filter((_, k) => shardOfValidator(k) === sh).join('|')}`).join(',');
  const relayPidFile = join(dir, 'relay.pid');
  try {
    await Promise.all(rpcUrls.map((u, i) => waitForFirstBlock(u, nodes[i]!, 60_000, join(dir, `validator-${i}.log`))));
    if (shards > 1 && o.relay !== false) {
      relay = spawnLogged(o.cli ?? CLI, ['relay-shards'], { ...process.env, CHAIN_SHARD_NODES: shardNodes, SHARD_NODE_URLS: '', ...o.env }, join(dir, 'relay.log'));
      nodes.push(relay);
      writeFileSync(relayPidFile, `${relay.pid}\n`);
    }
    if (o.gatewayPort !== null) {
      const gw = spawnLogged(o.cli ?? CLI, ['gateway', '--network', 'devnet'], { ...process.env, PORT: String(o.gatewayPort), NODE_RPC_URL: rpcUrls[0]!, ...(shards > 1 ? { CHAIN_SHARD_NODES: shardNodes } : { SHARD_NODE_URLS: rpcUrls.join('|') }), NODE_SOURCE_ADDRESS: GATEWAY_SOURCE_ADDRESS, NETWORK_ID: 'devnet-local', POLL_NODE_INTERVAL_MS: '500', ...o.env }, join(dir, 'gateway.log'));
      nodes.push(gw);
      gatewayUrl = `http://127.0.0.1:${o.gatewayPort}`;
      await waitForGateway(gatewayUrl, gw, 30_000, join(dir, 'gateway.log'));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  log(`devnet ready: ${shards > 1 ? `${shards} shards of ${o.validators} validator(s)` : `${o.validators} validator(s)`}${gatewayUrl ? ' and a gateway' : ''}, chain ${(JSON.parse(readFileSync(genesisFile, 'utf8')) as GenesisDoc).chain_id}, data in ${dir}`);
  rpcUrls.forEach((u, i) => log(`  validator-${i}${shards > 1 ? ` (shard ${shardOfValidator(i)})` : ''} RPC ${u}   log ${join(dir, `validator-${i}.log`)}`));
  if (gatewayUrl) log(`  gateway ${gatewayUrl}  (WebSocket ${gatewayUrl.replace('http', 'ws')}/ws)   log ${join(dir, 'gateway.log')}`);
  if (relay) log(`  relay-shards pid ${relay.pid} (${relayPidFile})   log ${join(dir, 'relay.log')}`);
  return { dir, rpcUrls, shards, gatewayUrl, nodes, relay, networkEnv: { CHAIN_IBC_OPERATOR_PUBKEYS: ibcOperators }, stop, stopValidator, startValidator };
}
