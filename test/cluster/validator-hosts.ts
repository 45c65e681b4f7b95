import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { prepareDevnet } from '../../devnet/launcher.js';
import { NODE_V8_FLAGS } from '../../kernel/node/v8-flags.js';
import { setSigningChainId } from '../helpers/chain-fixture.js';
import { CLI, getJson, until } from '../helpers/node-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { NetnsCluster, type NetnsHost } from './netns.js';
import { Faults } from './faults.js';
import { EmulatedLinks } from './emulated-links.js';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import type { BlockView } from './history/chain-agreement.js';

const P2P_PORT = 26656;
const RPC_PORT = 9933;

export interface ValidatorHost {
  readonly host: NetnsHost;
  readonly url: string;
  readonly dataDir: string;
  proc: ChildProcess | null;
  readonly logs: string[];
}

/**
 * Validators on hosts of their own (network namespaces on one bridge), for fault scenarios: the
 * genesis and keys come from the devnet's files, made with each validator's address on its host;
 * every node binds its host's IP and seeds from the others. `faults` cuts, pauses and kills;
 * `start(i, env)` restarts a node on its data (a skewed clock: `skewedEnv`). `followers` adds
 * hosts past the validators for full nodes that are not validators (a key of their own, not in
 * the genesis), left stopped until a scenario starts them (`start(i, env, ['--snapshot-from', url])`).
 */
export class ValidatorHosts {
  readonly nodes: ValidatorHost[];
  readonly faults: Faults;
  private constructor(
    readonly cluster: NetnsCluster,
    readonly dir: string,
    private readonly files: { genesisFile: string; keyFiles: string[] },
    readonly links: EmulatedLinks | undefined,
    private readonly env: NodeJS.ProcessEnv,
    /** How many of the hosts are validators (the rest: followers). */
    readonly validators: number,
  ) {
    this.nodes = cluster.hosts.map((host) => ({ host, url: `http://${host.ip}:${RPC_PORT}`, dataDir: join(dir, `node-${host.index}`), proc: null, logs: [] }));
    this.faults = new Faults(cluster);
    this.faults.links = links;
  }

  static unavailable(): string | undefined {
    return NetnsCluster.unavailable();
  }

  /**
   * `emulatedLinks`: the validators dial each other through emulated links (emulated-links.ts), so
   * `faults.shape` can delay, jitter and stall them; their schedules derive from `seed`.
   * `followers`: hosts past the validators for full nodes a scenario starts itself.
   */
  static async start(n: number, env: NodeJS.ProcessEnv = {}, envOf: (i: number) => NodeJS.ProcessEnv = () => ({}), options: { readonly emulatedLinks?: { readonly seed: number }; readonly followers?: number } = {}): Promise<ValidatorHosts> {
    const followers = options.followers ?? 0;
    // The emulator blackholes every pair of hosts and seeds only validators' proxies: a follower could reach nobody.
    if (options.emulatedLinks && followers > 0) throw new Error('emulated links and followers are not supported together: the emulator links validators only');
    const cluster = NetnsCluster.create(n + followers);
    let links: EmulatedLinks | undefined;
    try {
      if (options.emulatedLinks) links = await EmulatedLinks.open(cluster, P2P_PORT, options.emulatedLinks.seed);
      const dir = tempDir('faults-');
      const files = prepareDevnet({ validators: n, dir, reset: false, p2pEndpoint: (i) => `${cluster.hosts[i]!.ip}:${P2P_PORT}` });
      for (let i = n; i < n + followers; i++) {
        const keyFile = join(dir, `follower-${i}.json`);
        writeKeyFile(keyFile, makeKeyFile(nobleProvider, new Uint8Array(32).fill(200 + i), `follower-${i}`).file);
        files.keyFiles.push(keyFile);
      }
      setSigningChainId((JSON.parse(readFileSync(files.genesisFile, 'utf8')) as { chain_id: string }).chain_id);
      const v = new ValidatorHosts(cluster, dir, files, links, { CHAIN_BLOCK_MS: '100', CHAIN_EMPTY_BLOCK_MS: '400', CHAIN_MIN_VALIDATORS: String(n), CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '0', CHAIN_VERIFY_WORKERS: '0', ...env }, n);
      await Promise.all(v.nodes.slice(0, n).map((_, i) => v.start(i, envOf(i))));
      return v;
    } catch (err) {
      await links?.close();
      await cluster.destroy();
      throw err;
    }
  }

  /** Starts node i (a validator, or a follower past them) on its data dir; resolves once its RPC listens. */
  async start(i: number, env: NodeJS.ProcessEnv = {}, extraArgs: readonly string[] = []): Promise<void> {
    const node = this.nodes[i]!;
    // Every node seeds from the validators (through the emulated links between validators); a follower is no one's seed.
    const seeds = ((i < this.validators ? this.links?.seedsOf(i) : undefined) ?? this.nodes.filter((_, j) => j !== i && j < this.validators).map((n) => `${n.host.ip}:${P2P_PORT}`)).join(',');
    const argv = [process.execPath, ...NODE_V8_FLAGS, CLI, 'node', '--network', 'devnet', '--data-dir', node.dataDir, '--genesis', this.files.genesisFile, '--key', this.files.keyFiles[i]!, '--rpc-host', node.host.ip, '--rpc-port', String(RPC_PORT), '--p2p-host', node.host.ip, '--p2p-port', String(P2P_PORT), '--seeds', seeds, ...extraArgs];
    const proc = this.cluster.spawn(node.host, argv, { env: { ...process.env, ...this.env, ...env } });
    node.proc = proc;
    createInterface({ input: proc.stdout! }).on('line', (l) => node.logs.push(l));
    createInterface({ input: proc.stderr! }).on('line', (l) => node.logs.push(l));
    await new Promise<void>((res, rej) => {
      createInterface({ input: proc.stdout! }).on('line', (l) => {
        if (l.includes('node RPC listening')) res();
      });
      proc.once('exit', (code) => rej(new Error(`node ${i} exited (${code}):\n${node.logs.slice(-20).join('\n')}`)));
    });
  }

  /** The genesis document every validator runs. */
  get genesisFile(): string {
    return this.files.genesisFile;
  }

  /** SIGTERM (a clean stop: its data directory can then be audited) and wait for the exit. */
  async stop(i: number): Promise<void> {
    const proc = this.nodes[i]!.proc;
    if (!proc) return;
    const exited = new Promise<void>((res) => (proc.exitCode !== null || proc.signalCode !== null ? res() : proc.once('exit', () => res())));
    proc.kill('SIGCONT');
    proc.kill('SIGTERM');
    await exited;
    this.nodes[i]!.proc = null;
  }

  /** kill -9 and wait for the exit. */
  async kill(i: number): Promise<void> {
    const proc = this.nodes[i]!.proc;
    if (!proc) return;
    const exited = new Promise<void>((res) => (proc.exitCode !== null || proc.signalCode !== null ? res() : proc.once('exit', () => res())));
    this.faults.kill(proc, `validator ${i}`);
    await exited;
    this.nodes[i]!.proc = null;
  }

  async height(i: number): Promise<number> {
    return (await getJson(`${this.nodes[i]!.url}/health`)).body.height as number;
  }

  /** The highest height any of `of` reports (unreachable ones count 0). */
  async maxHeight(of: readonly number[] = this.nodes.map((_, i) => i)): Promise<number> {
    return Math.max(...(await Promise.all(of.map((i) => this.height(i).catch(() => 0)))));
  }

  /**
   * The highest height seen once no validator has moved for `quietMs`: a height in flight when a
   * fault began may still finish, later on a loaded machine than on a quiet one. The running
   * maximum is kept, so a health read that times out cannot make the chain look lower than it was.
   */
  async settledHeight(quietMs: number, timeoutMs = 60_000): Promise<number> {
    const end = Date.now() + timeoutMs;
    let seen = await this.maxHeight();
    let since = Date.now();
    while (Date.now() - since < quietMs) {
      if (Date.now() > end) throw new Error(`heights never settled for ${quietMs} ms within ${timeoutMs} ms (last ${seen})`);
      await new Promise((r) => setTimeout(r, 250));
      const now = await this.maxHeight();
      if (now > seen) {
        seen = now;
        since = Date.now();
      }
    }
    return seen;
  }

  /** The highest height any validator reports at any read over `ms`. */
  async highestOver(ms: number): Promise<number> {
    const end = Date.now() + ms;
    let seen = await this.maxHeight();
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, 250));
      seen = Math.max(seen, await this.maxHeight());
    }
    return seen;
  }

  async waitHeight(of: readonly number[], h: number, timeoutMs = 60_000): Promise<void> {
    await until(`validators ${of.join(', ')} at height ${h}`, async () => ((await Promise.all(of.map((i) => this.height(i).catch(() => 0)))).every((x) => x >= h) ? true : undefined), timeoutMs);
  }

  /** Every block 1..upTo as each of `of` serves it, for the agreement check. */
  async blocks(of: readonly number[], upTo: number): Promise<Map<string, BlockView[]>> {
    const views = new Map<string, BlockView[]>();
    for (const i of of) {
      const list: BlockView[] = [];
      for (let h = 1; h <= upTo; h++) {
        const b = await getJson(`${this.nodes[i]!.url}/api/v1/blocks/${h}`);
        if (b.status === 200) list.push({ height: h, hash: String(b.body.hash), stateRoot: String(b.body.state_root) });
      }
      views.set(this.label(i), list);
    }
    return views;
  }

  label(i: number): string {
    return i < this.validators ? `validator ${i}` : `follower ${i}`;
  }

  logsMatching(re: RegExp): string[] {
    return this.nodes.flatMap((n, i) => n.logs.filter((l) => re.test(l)).map((l) => `${this.label(i)}: ${l}`));
  }

  async destroy(): Promise<void> {
    this.faults.healAll();
    await this.cluster.destroy();
    await this.links?.close();
  }
}
