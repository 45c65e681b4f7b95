import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as the tool server sent them. */
  readonly path: string;
  readonly body: unknown;
}

/**
 * A loopback HTTP server answering canned JSON per `METHOD path` and recording what it was asked,
 * for unit tests of the tool server's requests and texts (the integration test,
 * test/integration/mcp.test.ts, runs a real gateway). An unlisted request answers 404.
 */
export class FakeGateway {
  readonly requests: RecordedRequest[] = [];
  private readonly answers = new Map<string, { status: number; body: string }>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeGateway> {
    let self: FakeGateway | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        self!.requests.push({ method: req.method ?? '', path, body: text === '' ? undefined : (JSON.parse(text) as unknown) });
        const a = self!.answers.get(`${req.method} ${path}`) ?? { status: 404, body: JSON.stringify({ error: `no route ${req.method} ${path}` }) };
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(a.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new FakeGateway(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** `body` is sent as JSON text (a string is sent as it is). */
  answer(method: 'GET' | 'POST', path: string, status: number, body: unknown): this {
    this.answers.set(`${method} ${path}`, { status, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
