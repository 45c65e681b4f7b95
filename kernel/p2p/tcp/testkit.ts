/**
 * Test helpers for the TCP transport: deterministic node keys, event waiters and a frame-aware TCP
 * proxy that can capture, re-chunk, tamper with or actively man-in-the-middle the byte stream.
 * Not a test file itself (no `.test.ts`), so the runner does not execute it.
 */
import net from 'node:net';
import { nobleProvider } from '../../crypto/noble-provider.js';
import type { KeyPair } from '../../crypto/provider.js';
import { FrameDecoder } from './frame.js';
import type { Frame } from './frame.js';
import { TcpTransport } from './tcp-transport.js';
import type { TcpTransportOptions } from './types.js';

export const TEST_CHAIN_ID = 'pq-test-chain';
export const TEST_GENESIS_HASH = new Uint8Array(32).fill(7);

const keyCache = new Map<number, KeyPair>();

/** Deterministic ML-DSA-65 node key number `i` (cached: keygen is the slow part of a test node). */
export function testNodeKey(i: number): KeyPair {
  let kp = keyCache.get(i);
  if (kp === undefined) {
    kp = nobleProvider.keygen(new Uint8Array(32).fill(i & 0xff));
    keyCache.set(i, kp);
  }
  return kp;
}

/** A node on 127.0.0.1:0 with test-friendly timings; `overrides` win. */
export function testNode(i: number, overrides: Partial<TcpTransportOptions> = {}): TcpTransport {
  return new TcpTransport({
    provider: nobleProvider,
    nodeKey: testNodeKey(i),
    chainId: TEST_CHAIN_ID,
    genesisHash: TEST_GENESIS_HASH,
    host: '127.0.0.1',
    port: 0,
    // Generous: the 1-byte proxy and a loaded CI box can make a handshake take seconds.
    handshakeTimeoutMs: 20_000,
    backoff: { baseMs: 40, maxMs: 400 },
    ...overrides,
  });
}

/** Resolves with the first value passed to `resolve`, or rejects after `timeoutMs`. */
export function waitFor<T>(register: (resolve: (v: T) => void) => () => void, what: string, timeoutMs = 20_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let unsubscribe: () => void = () => undefined;
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    unsubscribe = register((v) => {
      clearTimeout(timer);
      unsubscribe();
      resolve(v);
    });
  });
}

/** Waits until `predicate` holds, re-checking on every connect/disconnect/failure of `nodes`. */
export function waitUntil(nodes: readonly TcpTransport[], predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  if (predicate()) return Promise.resolve();
  return waitFor<void>(
    (resolve) => {
      const check = (): void => {
        if (predicate()) resolve();
      };
      const offs = nodes.flatMap((n) => [n.onPeerConnected(check), n.onPeerDisconnected(check), n.onHandshakeFailed(check)]);
      return () => offs.forEach((off) => off());
    },
    what,
    timeoutMs,
  );
}

/** Polls a condition that has no event of its own (e.g. a score that rises on dropped frames). */
export async function eventually(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function wireFrame(frame: Frame): Uint8Array {
  const out = new Uint8Array(frame.header.length + frame.body.length);
  out.set(frame.header, 0);
  out.set(frame.body, frame.header.length);
  return out;
}

/** Given one frame (and its index in that direction), returns the wire bytes to forward instead. */
export type FrameHook = (frame: Frame, index: number) => Uint8Array[];

export interface ProxyOptions {
  readonly targetPort: number;
  /** Called once per proxied TCP connection so stateful hooks (a MITM) start fresh each time. */
  readonly session?: () => { clientToServer?: FrameHook; serverToClient?: FrameHook };
  /** Forward every byte as its own write, yielding to the event loop in between. */
  readonly oneByteWrites?: boolean;
}

interface ProxyPair {
  readonly client: net.Socket;
  readonly server: net.Socket;
}

/** Frame-aware TCP proxy between a dialing node (client) and a listening node (server). */
export class TestProxy {
  port = 0;
  /** Every byte forwarded, per direction, in order. */
  readonly captured: { clientToServer: Uint8Array[]; serverToClient: Uint8Array[] } = { clientToServer: [], serverToClient: [] };
  readonly pairs: ProxyPair[] = [];
  private readonly listener: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly opts: ProxyOptions) {
    this.listener = net.createServer((client) => this.onClient(client));
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.listener.listen(0, '127.0.0.1', resolve));
    const addr = this.listener.address();
    this.port = typeof addr === 'object' && addr !== null ? addr.port : 0;
    return this.port;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Writes raw bytes to the server side of the most recent connection. */
  injectToServer(bytes: Uint8Array): void {
    this.pairs[this.pairs.length - 1]?.server.write(bytes);
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.listener.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private onClient(client: net.Socket): void {
    const server = net.connect({ host: '127.0.0.1', port: this.opts.targetPort });
    this.track(client);
    this.track(server);
    client.setNoDelay(true);
    server.setNoDelay(true);
    this.pairs.push({ client, server });
    const hooks = this.opts.session?.() ?? {};
    this.pipe(client, server, hooks.clientToServer, this.captured.clientToServer);
    this.pipe(server, client, hooks.serverToClient, this.captured.serverToClient);
    const closeBoth = (): void => {
      client.destroy();
      server.destroy();
    };
    client.on('close', closeBoth);
    server.on('close', closeBoth);
  }

  private track(s: net.Socket): void {
    this.sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => this.sockets.delete(s));
  }

  private pipe(from: net.Socket, to: net.Socket, hook: FrameHook | undefined, capture: Uint8Array[]): void {
    const decoder = new FrameDecoder(256 * 1024 * 1024);
    let index = 0;
    const queue: Uint8Array[] = [];
    let pumping = false;
    const write = (bytes: Uint8Array): void => {
      capture.push(bytes);
      if (!this.opts.oneByteWrites) {
        to.write(bytes);
        return;
      }
      queue.push(bytes);
      if (pumping) return;
      pumping = true;
      void (async () => {
        while (queue.length > 0) {
          const chunk = queue.shift()!;
          for (let i = 0; i < chunk.length; i++) {
            if (to.destroyed) return;
            to.write(chunk.subarray(i, i + 1));
            await new Promise((r) => setImmediate(r));
          }
        }
        pumping = false;
      })();
    };
    from.on('data', (chunk: Buffer) => {
      if (hook === undefined) {
        write(new Uint8Array(chunk));
        return;
      }
      decoder.push(new Uint8Array(chunk));
      for (let f = decoder.next(); f !== null; f = decoder.next()) {
        for (const out of hook(f, index)) write(out);
        index++;
      }
    });
  }
}

/** True if `needle` occurs anywhere in the concatenation of `chunks`. */
export function containsBytes(chunks: readonly Uint8Array[], needle: Uint8Array): boolean {
  return Buffer.concat(chunks).indexOf(Buffer.from(needle)) >= 0;
}
