/**
 * Test support for the gateway's integration tests (test/integration/gateway*.test.ts): a real
 * `chain gateway` child process, a node on a fixed port (so it can be restarted where the gateway
 * expects it), and a WebSocket client that awaits messages instead of sleeping.
 */
import { join } from 'node:path';
import WebSocket from 'ws';
import { CLI, makeChainDir, spawnChainProcess, type ChainProcess } from '../../../test/helpers/node-process.js';
import { freePorts } from '../../../test/helpers/cluster.js';

export type ProcessHandle = ChainProcess;

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}

/** A gateway or a restarted node must not hang a test run: SIGKILL after 5 s of a hung shutdown. */
const KILL_AFTER_MS = 5000;

/**
 * `chain gateway` with PORT=0 unless given; resolves with the port it logged. `nodeFlags` go to
 * node before the CLI (the gateway bench's `--cpu-prof`, which NODE_OPTIONS does not accept).
 */
export function startGatewayProcess(env: Record<string, string>, nodeFlags: readonly string[] = []): Promise<ProcessHandle> {
  const scheme = env.TLS_CERT ? 'https' : 'http';
  const [first, ...rest] = [...nodeFlags, CLI];
  return spawnChainProcess([...rest, 'gateway', '--network', 'devnet'], { CHAIN_LOG_LEVEL: 'info', PORT: '0', POLL_NODE_INTERVAL_MS: '100', FAUCET_COOLDOWN_SECS: '0', ...env }, /"port":(\d+).*gateway listening/, { scheme, killAfterMs: KILL_AFTER_MS, cli: first! });
}

/**
 * A one-validator node on a fixed RPC port over `dir` (test/helpers' chain folder), with the
 * same short block times as startNodeProcess; restarting it with the same dir and port continues
 * the chain where the gateway expects the node to be.
 */
export function startNodeAt(port: number, dir?: string, env: Record<string, string> = {}): Promise<ProcessHandle & { dir: string }> {
  const chain = makeChainDir(dir ? { dir } : {});
  return spawnChainProcess(
    ['node', '--network', 'devnet', '--data-dir', join(chain.dir, 'data'), '--genesis', chain.genesis, '--key', chain.key, '--rpc-port', String(port)],
    { CHAIN_LOG_LEVEL: 'info', CHAIN_MIN_VALIDATORS: '1', CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '250', CHAIN_RPC_RATE_LIMIT: '100000', ...env },
    /"port":(\d+).*node RPC listening/,
    { killAfterMs: KILL_AFTER_MS },
  ).then((h) => ({ ...h, dir: chain.dir }));
}

export type Msg = Record<string, unknown> & { type: string };

/** A socket client that queues every server message and lets a test await the one it needs. */
export class WsClient {
  readonly received: Msg[] = [];
  private readonly waiters: Array<{ pred: (m: Msg) => boolean; resolve: (m: Msg) => void; from: number }> = [];
  private nextId = 1;
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw: WebSocket.RawData) => {
      const m = JSON.parse(raw.toString()) as Msg;
      this.received.push(m);
      for (const w of [...this.waiters]) {
        if (w.pred(m)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    });
    ws.on('close', () => (this.closed = true));
  }

  static connect(url: string, opts: WebSocket.ClientOptions = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, opts);
      const c = new WsClient(ws);
      ws.once('open', () => resolve(c));
      ws.once('error', reject);
    });
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** The first message (already received from index `from` on, or future) matching `pred`. */
  next(what: string, pred: (m: Msg) => boolean, timeoutMs = 15_000, from = 0): Promise<Msg> {
    const seen = this.received.slice(from).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${this.received.length} message(s), last: ${JSON.stringify(this.received.slice(-3)).slice(0, 600)}`)), timeoutMs);
      this.waiters.push({ pred, from, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** Only messages arriving after this call. */
  nextNew(what: string, pred: (m: Msg) => boolean, timeoutMs = 15_000): Promise<Msg> {
    return this.next(what, pred, timeoutMs, this.received.length);
  }

  async rpc(method: string, params: Record<string, unknown> = {}): Promise<Msg> {
    const id = this.nextId++;
    this.send({ type: 'rpc', id, method, params });
    return this.nextNew(`rpc_reply ${id} (${method})`, (m) => m.id === id && (m.type === 'rpc_reply' || m.type === 'error'));
  }

  close(): void {
    this.ws.close();
  }
}
