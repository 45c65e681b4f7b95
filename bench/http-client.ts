import { Agent, request } from 'node:http';

/**
 * The load generator's HTTP client: node:http over a keep-alive pool. The load bench shares the
 * 2-core machine with the validators it measures, and fetch() spent ~1.4 ms of CPU per
 * submission there (a tenth of the machine at saturation) in its WHATWG stream layers; every
 * millisecond the client burns is one the validators do not get.
 */
export class BenchHttpClient {
  private readonly agent: Agent;

  /** `sockets`: connections per host, at least the submissions a flat-out run keeps outstanding. */
  constructor(sockets = 64) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  /** POSTs text that is already JSON (bodies are serialised before the timed run). */
  postJsonText(url: string, json: string): Promise<{ status: number; body: Record<string, unknown> }> {
    return this.send('POST', url, json);
  }

  getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
    return this.send('GET', url, undefined);
  }

  close(): void {
    this.agent.destroy();
  }

  private async send(method: 'GET' | 'POST', url: string, json: string | undefined): Promise<{ status: number; body: Record<string, unknown> }> {
    try {
      return await this.sendOnce(method, url, json);
    } catch (e) {
      // A pooled socket the server closed while idle (pre-signing can take a minute) fails on
      // first reuse; Node's documented remedy is one retry on a fresh socket. The request never
      // reached the server, so repeating a POST does not submit twice.
      if (!(e instanceof StaleSocketError)) throw e;
      return this.sendOnce(method, url, json);
    }
  }

  private sendOnce(method: 'GET' | 'POST', url: string, json: string | undefined): Promise<{ status: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent: this.agent,
          headers: json === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
            } catch {
              reject(new Error(`${method} ${url}: ${res.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`));
            }
          });
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => reject(req.reusedSocket && e.code === 'ECONNRESET' ? new StaleSocketError(e.message) : e));
      req.end(json);
    });
  }
}

class StaleSocketError extends Error {}
