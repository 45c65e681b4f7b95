import type { GenesisDoc } from '../../kernel/config/genesis.js';
import { reapChildrenOnExit } from './child-reaper.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { testGenesis } from './genesis.js';
import { shardKey } from '../../devnet/launcher.js';
import { collectGenesis } from '../../kernel/config/genesis-collect.js';
import { signJoin } from '../../kernel/config/genesis-join.js';
import { tempDir } from './temp-dir.js';
import { setSigningChainId } from './chain-fixture.js';
import { logTails } from './process-logs.js';

export const CLI = resolve('dist/cli/main.js');

export type NodeHandle = ChainProcess & { readonly dir: string };

/** A one-validator chain folder: validator key (fixed seed) and genesis. */
export function makeChainDir(opts: { chainId?: string; dir?: string } = {}): { dir: string; genesis: string; key: string } {
  const dir = opts.dir ?? tempDir('chain-it-');
  const key = join(dir, 'validator.json');
  const genesis = join(dir, 'genesis.json');
  if (!existsSync(key)) {
    const k = makeKeyFile(nobleProvider, new Uint8Array(32).fill(99), 'validator-0');
    writeKeyFile(key, k.file);
    const doc = testGenesis({ chainId: opts.chainId ?? 'it-chain', validators: [{ address: k.file.node_address!, key: k.keys, stake: '10000000000' }] });
    writeFileSync(genesis, JSON.stringify(doc));
  }
  return { dir, genesis, key };
}

function exited(proc: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return res();
    proc.once('exit', () => res());
  });
}

/** Signals the process and waits for it to exit; with `killAfterMs`, SIGKILL if it has not by then. */
async function stopProcess(proc: ChildProcess, signal: NodeJS.Signals, killAfterMs?: number): Promise<void> {
  const done = exited(proc);
  proc.kill(signal);
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => proc.kill('SIGKILL'), killAfterMs);
  await done;
  clearTimeout(timer);
}

/** A `chain` child process that has logged the port it listens on. */
export interface ChainProcess {
  readonly url: string;
  readonly port: number;
  readonly proc: ChildProcess;
  readonly logs: string[];
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit (crash). */
  kill(): Promise<void>;
}

/**
 * Runs `chain <args>` and resolves once a log line matches `listening` (its first group is the
 * port); rejects with the process's output if it exits first. `cli`: another build of the binary
 * (the test build, test/fixtures/test-chain.ts).
 */
export function spawnChainProcess(args: string[], env: NodeJS.ProcessEnv, listening: RegExp, opts: { scheme?: 'http' | 'https'; killAfterMs?: number; cli?: string } = {}): Promise<ChainProcess> {
  reapChildrenOnExit();
  const proc = spawn(process.execPath, [opts.cli ?? CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  proc.stderr!.on('data', (d: Buffer) => logs.push(d.toString()));
  return new Promise<ChainProcess>((resolve, reject) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.on('line', (line) => {
      logs.push(line);
      const m = listening.exec(line);
      if (m) {
        const port = Number(m[1]);
        resolve({
          url: `${opts.scheme ?? 'http'}://127.0.0.1:${port}`,
          port,
          proc,
          logs,
          stop: () => stopProcess(proc, 'SIGTERM', opts.killAfterMs),
          kill: () => stopProcess(proc, 'SIGKILL', opts.killAfterMs),
        });
      }
    });
    proc.once('exit', (code) => reject(new Error(`${args[0]} exited (${code}) before listening:\n${logs.join('\n')}`)));
  });
}

/** Starts `chain node` on a free port and resolves once its RPC is listening (read from its log). */
export async function startNodeProcess(opts: { network?: string; env?: NodeJS.ProcessEnv; dir?: string } = {}): Promise<NodeHandle> {
  const { dir, genesis, key } = makeChainDir({ ...(opts.dir ? { dir: opts.dir } : {}) });
  // The signing helpers name this chain in ch-tx-v4.
  setSigningChainId((JSON.parse(readFileSync(genesis, 'utf8')) as GenesisDoc).chain_id);
  const node = await spawnChainProcess(
    ['node', '--network', opts.network ?? 'devnet', '--data-dir', join(dir, 'data'), '--genesis', genesis, '--key', key, '--rpc-port', '0'],
    { CHAIN_LOG_LEVEL: 'info', CHAIN_MIN_VALIDATORS: '1', CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '250', ...opts.env },
    /"port":(\d+).*node RPC listening/,
  );
  return { ...node, dir };
}

/**
 * One single-validator node per shard of an `n`-shard network (decisions.md §71): one genesis
 * listing each shard's validator with its `shard` (keys drawn from a fixed seed sequence so the
 * `.node` and its owner belong to that shard), each node run with CHAIN_SHARDS and CHAIN_SHARD_ID.
 */
export async function startShardNodes(n: number, env: NodeJS.ProcessEnv = {}): Promise<NodeHandle[]> {
  const dir = tempDir('shards-it-');
  let seed = 0;
  const keys = Array.from({ length: n }, (_, s) => shardKey(s, s, n, () => new Uint8Array(32).fill(++seed)));
  const doc = collectGenesis(
    keys.map((k) => signJoin({ chainId: 'it-shards', address: k.file.node_address!, key: k.keys, stake: 10_000_000_000n, p2pExternal: '127.0.0.1:26656' }, nobleProvider)),
    { chainId: 'it-shards', genesisTime: 1_700_000_000_000, testNetwork: false, nShards: n },
  );
  const genesis = join(dir, 'genesis.json');
  writeFileSync(genesis, JSON.stringify(doc));
  setSigningChainId(doc.chain_id);
  return Promise.all(
    keys.map(async (k, s) => {
      const key = join(dir, `validator-${s}.json`);
      writeKeyFile(key, k.file);
      const node = await spawnChainProcess(
        ['node', '--network', 'devnet', '--data-dir', join(dir, `data-${s}`), '--genesis', genesis, '--key', key, '--rpc-port', '0'],
        { CHAIN_LOG_LEVEL: 'info', CHAIN_MIN_VALIDATORS: '1', CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '250', CHAIN_SHARDS: String(n), CHAIN_SHARD_ID: String(s), ...env },
        /"port":(\d+).*node RPC listening/,
      );
      return { ...node, dir };
    }),
  );
}

export async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    // A pooled keep-alive socket the server closed while this process was busy (the load bench
    // pre-signing for a minute) fails the request on "other side closed"; a GET is safe to repeat
    // once on a fresh socket.
    if (!isStaleSocket(e)) throw e;
    res = await fetch(url);
  }
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function isStaleSocket(e: unknown): boolean {
  const cause = e instanceof Error ? (e.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'UND_ERR_SOCKET';
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * Polls the node until `check` passes; the node's own block production is the event awaited.
 * The pause grows from 25 to 100 ms (100 after ~375 ms): a short wait still ends within ~25–75 ms
 * of the event, and a wait of a hundred blocks polls a quarter as often (each poll is a request the
 * suite's two cores serve beside the devnets).
 */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 25; ; pause = Math.min(100, Math.round(pause * 1.25))) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * The transaction once `url` reports it out of pending. On a timeout the error carries the last
 * answer and the tails of the network's logs (process-logs.ts): whether the chain stalled or only
 * this transaction did.
 *
 * The wait is long (60 s) because the first block that needs a lazily loaded part on a node waits
 * for it there: a contract deploy loads Binaryen on every validator (1.2 s of CPU on a quiet
 * machine, 15 s measured in the clean-clone CI, where ten node processes share two cores), and a
 * validator that met the deploy only in the proposal commits it that much later than the others.
 * A transaction that is never confirmed costs the wait; one that is confirmed costs nothing more.
 */
export async function waitConfirmed(url: string, hash: string, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  let last = 'no answer';
  try {
    return await until(`transaction ${hash} to leave pending`, async () => {
      const r = await getJson(`${url}/api/v1/transactions/${hash}`);
      last = `${r.status} ${JSON.stringify(r.body)}`;
      return r.status === 200 && r.body.status !== 'pending' ? r.body : undefined;
    }, timeoutMs);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('timed out')) throw err;
    throw new Error(`${err.message} at ${url} (last answer: ${last})${logTails(url)}`);
  }
}
