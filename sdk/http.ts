import { ChainHttpError } from './errors.js';

/** The fetch the SDK uses: the platform's by default (Node ≥ 18, browsers), or the caller's. */
export type FetchLike = (url: string, init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{ status: number; text(): Promise<string> }>;

/** JSON over HTTP to one node or gateway: 200 gives the body, anything else a ChainHttpError with the server's message. */
export class Http {
  readonly base: string;
  private readonly fetchFn: FetchLike;

  constructor(base: string, fetchFn?: FetchLike) {
    this.base = base.replace(/\/+$/, '');
    const f = fetchFn ?? (globalThis.fetch as unknown as FetchLike | undefined);
    if (f === undefined) throw new Error('no fetch: pass one to the client');
    this.fetchFn = f;
  }

  /** The status and parsed body, whatever the status. */
  async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const res = await this.fetchFn(`${this.base}${path}`, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: handed on as text
    }
    return { status: res.status, body: parsed };
  }

  async get(path: string): Promise<unknown> {
    const r = await this.request('GET', path);
    if (r.status !== 200) throw new ChainHttpError('GET', path, r.status, r.body);
    return r.body;
  }

  async send(method: string, path: string, body: unknown): Promise<unknown> {
    const r = await this.request(method, path, body);
    if (r.status !== 200) throw new ChainHttpError(method, path, r.status, r.body);
    return r.body;
  }
}
