import net from 'node:net';
import { mulberry32 } from '../helpers/prng.js';
import { LinkSchedule, ShapedPipe, type LinkProfile } from './link-shaper.js';

export interface LinkProxyOptions {
  /** Where it listens (port 0: an ephemeral one; `address` says which). */
  readonly listenHost: string;
  readonly listenPort?: number;
  /** Where every accepted connection is carried to. */
  readonly target: { readonly host: string; readonly port: number };
  /** The link from the dialler to the target, read for every segment (so a change applies at once). */
  readonly forward: () => LinkProfile;
  /** The link back, from the target to the dialler. */
  readonly backward: () => LinkProfile;
  /** The run's seed; each connection and direction draws from its own PRNG derived from it and `name`. */
  readonly seed: number;
  readonly name: string;
}

/** A 32-bit seed per (run seed, link, connection, direction): a connection's schedule does not depend on others'. */
function derivedSeed(seed: number, label: string): number {
  let h = seed >>> 0;
  for (const c of label) h = (Math.imul(h ^ c.charCodeAt(0), 0x01000193) + 0x9e3779b9) >>> 0;
  return h;
}

/**
 * A TCP proxy that is one emulated link (link-shaper.ts): every connection accepted is carried to
 * the target, each direction on its own seeded schedule. A reset or error on either side resets
 * the other (as a broken connection does); an end of stream is passed on after the bytes before
 * it, and the other direction stays open until it ends too (half-close, as TCP has it). `close()` stops listening, destroys every connection and clears every timer.
 */
export class LinkProxy {
  private readonly connections = new Set<{ readonly sockets: readonly net.Socket[]; readonly pipes: readonly ShapedPipe[] }>();
  private accepted = 0;

  private constructor(
    private readonly server: net.Server,
    private readonly o: LinkProxyOptions,
  ) {
    server.on('connection', (socket) => this.carry(socket));
  }

  static async open(o: LinkProxyOptions): Promise<LinkProxy> {
    const server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.listenPort ?? 0, o.listenHost, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new LinkProxy(server, o);
  }

  /** `host:port` to dial to go through this link. */
  get address(): string {
    const a = this.server.address() as net.AddressInfo;
    return `${a.address}:${a.port}`;
  }

  /** Connections carried now. */
  get open(): number {
    return this.connections.size;
  }

  /** Bytes read and not yet delivered, over every connection and direction. */
  get heldBytes(): number {
    let n = 0;
    for (const c of this.connections) for (const p of c.pipes) n += p.heldBytes;
    return n;
  }

  private carry(inbound: net.Socket): void {
    const n = this.accepted++;
    const outbound = net.connect({ host: this.o.target.host, port: this.o.target.port, allowHalfOpen: true });
    const rand = (dir: string): (() => number) => mulberry32(derivedSeed(this.o.seed, `${this.o.name}#${n}${dir}`));
    const pipes = [
      new ShapedPipe(inbound, outbound, new LinkSchedule(this.o.forward, rand('>'))),
      new ShapedPipe(outbound, inbound, new LinkSchedule(this.o.backward, rand('<'))),
    ];
    const entry = { sockets: [inbound, outbound], pipes };
    this.connections.add(entry);
    let closed = 0;
    const drop = (): void => {
      for (const p of pipes) p.stop();
      for (const s of entry.sockets) s.destroy();
      this.connections.delete(entry);
    };
    for (const s of entry.sockets) {
      s.on('error', drop);
      s.on('close', () => {
        if (++closed === 2) this.connections.delete(entry);
        // One side gone without its end of stream: the connection is broken, not half-closed.
        else if (!s.readableEnded) drop();
      });
    }
    outbound.once('connect', () => inbound.resume());
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of this.connections) {
      for (const p of c.pipes) p.stop();
      for (const s of c.sockets) s.destroy();
    }
    this.connections.clear();
    await closed;
  }
}
