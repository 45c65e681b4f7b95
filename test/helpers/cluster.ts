import { spawn, type ChildProcess } from 'node:child_process';
import { reapChildrenOnExit } from './child-reaper.js';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { prepareDevnet } from '../../devnet/launcher.js';
import { NODE_V8_FLAGS } from '../../kernel/node/v8-flags.js';
import { CLI, getJson, until } from './node-process.js';
import { tempDir } from './temp-dir.js';
import { registerNetworkLogs } from './process-logs.js';
import { claimPorts } from './port-claims.js';
import { readFileSync, writeFileSync } from 'node:fs';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import { setSigningChainId } from './chain-fixture.js';

/** Free loopback ports, reserved by binding them until all are known. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise<import('node:net').Server>((res, rej) => {
      const s = createServer();
      s.once('error', rej);
      s.listen(0, '127.0.0.1', () => res(s));
    })),
  );
  const ports = servers.map((s) => (s.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Whether a loopback port can be bound right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, '127.0.0.1', () => s.close(() => res(true)));
  });
}

/**
 * A block of `n` consecutive free loopback ports, for launchers that number ports from a base.
 * Searched below the kernel's ephemeral range (32768+), where port-0 binds and outgoing connections
 * of concurrent tests would otherwise take a port between our probe and the launcher's bind; and
 * claimed for this process (port-claims.ts), so another test file starting a devnet at the same
 * moment cannot probe the same block free before either binds it.
 */
export async function freePortBlock(n: number): Promise<number> {
  const low = 10000;
  const span = 32768 - low - n;
  let start = low + ((process.pid * 7919) % span);
  for (let attempt = 0; attempt < 200; attempt++, start = low + ((start - low + n + 13) % span)) {
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = await portIsFree(start + i);
    if (ok && claimPorts(start, n)) return start;
  }
  throw new Error(`no block of ${n} free consecutive ports found below 32768`);
}

export interface ClusterNode {
  readonly index: number;
  readonly url: string;
  proc: ChildProcess | null;
  logs: string[];
}

/**
 * N validator processes on loopback, each controllable: kill -9, SIGTERM, SIGSTOP/SIGCONT,
 * restart with the same data. The real `chain node` binary over the real TCP transport.
 */
export class Cluster {
  readonly nodes: ClusterNode[];
  private constructor(
    readonly dir: string,
    private readonly files: { genesisFile: string; keyFiles: string[] },
    private readonly rpcPorts: number[],
    private readonly p2pPorts: number[],
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.nodes = rpcPorts.map((p, index) => ({ index, url: `http://127.0.0.1:${p}`, proc: null, logs: [] }));
    this.registerLogs();
  }

  /** Every node's in-memory log, for the tails a timed-out wait prints (process-logs.ts). */
  private registerLogs(): void {
    registerNetworkLogs(this.nodes.map((n) => n.url), this.nodes.map((n) => ({ name: `node ${n.index}`, read: () => n.logs.join('\n') })));
  }

  /** The genesis document every node of the cluster was started with. */
  get genesisFile(): string {
    return this.files.genesisFile;
  }

  /** `editGenesis` changes the devnet's genesis document before any node reads it (the load bench's funded accounts). */
  static async start(n: number, env: NodeJS.ProcessEnv = {}, options: { editGenesis?: (doc: GenesisDoc) => GenesisDoc } = {}): Promise<Cluster> {
    reapChildrenOnExit();
    const dir = tempDir('cluster-');
    const ports = await freePorts(2 * n);
    const files = prepareDevnet({ validators: n, dir, reset: false, p2pEndpoint: (i) => `127.0.0.1:${ports[n + i]}` });
    if (options.editGenesis) writeFileSync(files.genesisFile, JSON.stringify(options.editGenesis(JSON.parse(readFileSync(files.genesisFile, 'utf8')) as GenesisDoc), null, 2));
    // The signing helpers name this chain in ch-tx-v4.
    setSigningChainId((JSON.parse(readFileSync(files.genesisFile, 'utf8')) as { chain_id: string }).chain_id);
    const c = new Cluster(dir, files, ports.slice(0, n), ports.slice(n), { CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '300', CHAIN_MIN_VALIDATORS: String(n), CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '0', ...env });
    try {
      await Promise.all(c.nodes.map((_, i) => c.startNode(i)));
    } catch (err) {
      // One validator failed to start: the others are running and nobody else holds them.
      await c.stop();
      throw err;
    }
    return c;
  }

  /**
   * A full node that is not a validator (its own fresh key), joining through the validators'
   * P2P addresses; `extraArgs` e.g. ['--snapshot-from', url].
   */
  async addFollower(extraArgs: string[] = []): Promise<ClusterNode> {
    const i = this.nodes.length;
    const [rpc, p2p] = await freePorts(2);
    const keyFile = join(this.dir, `follower-${i}.json`);
    const { makeKeyFile, writeKeyFile } = await import('../../kernel/crypto/keyfile.js');
    const { nobleProvider } = await import('../../kernel/crypto/noble-provider.js');
    writeKeyFile(keyFile, makeKeyFile(nobleProvider, new Uint8Array(32).fill(200 + i), `follower-${i}`).file);
    this.rpcPorts.push(rpc!);
    this.p2pPorts.push(p2p!);
    this.files.keyFiles.push(keyFile);
    const node: ClusterNode = { index: i, url: `http://127.0.0.1:${rpc}`, proc: null, logs: [] };
    this.nodes.push(node);
    this.registerLogs();
    await this.startNode(i, extraArgs);
    return node;
  }

  async startNode(i: number, extraArgs: string[] = []): Promise<void> {
    const node = this.nodes[i]!;
    const seeds = this.p2pPorts.filter((_, j) => j !== i).map((p) => `127.0.0.1:${p}`).join(',');
    // CLUSTER_NODE_ARGS passes flags to the node processes (e.g. --cpu-prof for profiling a benchmark).
    const nodeArgs = (process.env.CLUSTER_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const proc = spawn(process.execPath, [...NODE_V8_FLAGS, ...nodeArgs, CLI, 'node', '--network', 'devnet', '--data-dir', join(this.dir, `node-${i}`), '--genesis', this.files.genesisFile, '--key', this.files.keyFiles[i]!, '--rpc-port', String(this.rpcPorts[i]), '--p2p-port', String(this.p2pPorts[i]), '--seeds', seeds, ...extraArgs], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    node.proc = proc;
    createInterface({ input: proc.stdout! }).on('line', (l) => node.logs.push(l));
    proc.stderr!.on('data', (d: Buffer) => node.logs.push(d.toString()));
    await new Promise<void>((res, rej) => {
      const onLine = (l: string): void => {
        if (l.includes('node RPC listening')) res();
      };
      createInterface({ input: proc.stdout! }).on('line', onLine);
      proc.once('exit', (code) => rej(new Error(`validator ${i} exited (${code}):\n${node.logs.slice(-20).join('\n')}`)));
    });
  }

  private exited(i: number): Promise<void> {
    const p = this.nodes[i]!.proc;
    return new Promise((res) => {
      if (!p || p.exitCode !== null || p.signalCode !== null) return res();
      p.once('exit', () => res());
    });
  }

  async kill(i: number): Promise<void> {
    const done = this.exited(i);
    this.nodes[i]!.proc?.kill('SIGKILL');
    await done;
    this.nodes[i]!.proc = null;
  }

  async stopNode(i: number): Promise<void> {
    const done = this.exited(i);
    this.nodes[i]!.proc?.kill('SIGTERM');
    await done;
    this.nodes[i]!.proc = null;
  }

  pause(i: number): void {
    this.nodes[i]!.proc?.kill('SIGSTOP');
  }

  resume(i: number): void {
    this.nodes[i]!.proc?.kill('SIGCONT');
  }

  async height(i: number): Promise<number> {
    return (await getJson(`${this.nodes[i]!.url}/health`)).body.height as number;
  }

  async waitHeight(i: number, h: number, timeoutMs = 60_000): Promise<void> {
    await until(`validator ${i} to reach height ${h}`, async () => ((await this.height(i).catch(() => 0)) >= h ? true : undefined), timeoutMs);
  }

  /**
   * Every running node has the same block hash and state root at every height up to `upTo`.
   * Waits for each to reach `upTo` first: a certificate needs 3 of 4, so a node a few hundred ms
   * behind is lagging, not disagreeing.
   */
  async assertAgreement(upTo: number, running: number[] = this.nodes.map((n) => n.index).filter((i) => this.nodes[i]!.proc)): Promise<void> {
    await Promise.all(running.map((i) => this.waitHeight(i, upTo)));
    for (let h = 1; h <= upTo; h++) {
      const seen = new Set<string>();
      for (const i of running) {
        const b = await getJson(`${this.nodes[i]!.url}/api/v1/blocks/${h}`);
        if (b.status !== 200) throw new Error(`validator ${i} has no block ${h}`);
        seen.add(`${b.body.hash as string}/${b.body.state_root as string}`);
      }
      if (seen.size !== 1) throw new Error(`validators disagree at height ${h}: ${[...seen].join(' vs ')}`);
    }
  }

  async stop(): Promise<void> {
    for (const n of this.nodes) if (n.proc) n.proc.kill('SIGCONT');
    await Promise.all(this.nodes.map((n) => (n.proc ? this.stopNode(n.index) : undefined)));
  }

  logsMatching(re: RegExp): string[] {
    return this.nodes.flatMap((n) => n.logs.filter((l) => re.test(l)));
  }
}
