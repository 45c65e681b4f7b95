/**
 * Test support: a transparent HTTP relay between a gateway and a real node. It records every path
 * it relays (what actually reached the node) and can be told to answer everything with an error
 * for a while, the way a node that rate-limits the gateway (429) or fails (500) does, without
 * touching the node itself.
 */
import { EventEmitter, once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The bodies the node's own RPC answers these statuses with (kernel/rpc/pipeline.ts, respond.ts). */
const REFUSALS = {
  429: { body: { error: 'rate limit exceeded' }, headers: { 'Retry-After': '1' } },
  500: { body: { error: 'internal error' }, headers: {} },
} as const;

export type Refusal = keyof typeof REFUSALS;

export class FlakyUpstream {
  /** Raw request targets (path and query, as sent) the relay passed on to the node. */
  readonly relayed: string[] = [];
  private refusing: Refusal | undefined;
  private readonly refusedHealth = new EventEmitter();

  private readonly server: Server;

  private constructor(private readonly target: URL) {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(targetUrl: string): Promise<FlakyUpstream> {
    const relay = new FlakyUpstream(new URL(targetUrl));
    relay.server.listen(0, '127.0.0.1');
    await once(relay.server, 'listening');
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** From now on every request is answered with `status` and the node's body for it. */
  refuseWith(status: Refusal): void {
    this.refusing = status;
  }

  /** Back to relaying everything to the node. */
  pass(): void {
    this.refusing = undefined;
  }

  /** Resolves once `n` more `/health` polls have been refused: the gateway has seen the failure. */
  async healthRefusals(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await once(this.refusedHealth, 'refused');
  }

  async close(): Promise<void> {
    // The gateway keeps pooled keep-alive connections open; close() alone would wait for them.
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    if (this.refusing !== undefined) {
      const r = REFUSALS[this.refusing];
      res.writeHead(this.refusing, { 'content-type': 'application/json', ...r.headers });
      res.end(JSON.stringify(r.body));
      if (path === '/health') this.refusedHealth.emit('refused');
      return;
    }
    this.relayed.push(path);
    // The raw target goes on unchanged (node:http does not normalise it), so the node sees
    // exactly what the gateway sent.
    const upstream = request({ host: this.target.hostname, port: this.target.port, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'relay could not reach the node' }));
    });
    req.pipe(upstream);
  }
}
