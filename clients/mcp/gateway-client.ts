import { parseJsonLossless } from '../../plugins/gateway/lossless-json.js';

/**
 * A tool call that cannot go on, with the one text the model is shown (decisions.md §79): a
 * refused or failed request as `<METHOD> <path> → <status> <message>`, an unreachable gateway as
 * `<METHOD> <path> → gateway unreachable at <node_rpc>: <cause>`, or an argument that breaks a
 * rule. The tool answers `isError: true` with it; the process goes on.
 */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}

/** §79: no answer within 15 s counts as unreachable. */
export const GATEWAY_TIMEOUT_MS = 15_000;

/** How much of a body without `error` the failure text quotes (§79). */
const QUOTED_BODY_CHARS = 500;

export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The tool server's only way out of the process: requests to the gateway's REST API at
 * `node_rpc` (part 1, Components: the tool server talks only to the gateway). Every request is
 * one try, no retry (§80); a status other than 200, or a 200 whose body carries `error` (part 2,
 * Errors: older endpoints answer errors with 200), is a `ToolFailure`.
 */
export class GatewayClient {
  constructor(
    readonly baseUrl: string,
    private readonly fetchFn: FetchFn = fetch,
    private readonly timeoutMs = GATEWAY_TIMEOUT_MS,
  ) {}

  get(path: string): Promise<unknown> {
    return this.request('GET', path, undefined);
  }

  post(path: string, body: unknown): Promise<unknown> {
    return this.request('POST', path, body);
  }

  /** The answer's JSON, integers above 2^53 kept exact (bigint). */
  private async request(method: 'GET' | 'POST', path: string, body: unknown): Promise<unknown> {
    const what = `${method} ${path} →`;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchFn(this.baseUrl + path, {
        method,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      throw new ToolFailure(`${what} gateway unreachable at ${this.baseUrl}: ${causeOf(e, this.timeoutMs)}`);
    }
    let value: unknown;
    try {
      value = parseJsonLossless(text);
    } catch {
      throw new ToolFailure(`${what} ${res.status} ${res.status === 200 ? 'the answer is not JSON: ' : ''}${text.slice(0, QUOTED_BODY_CHARS)}`);
    }
    const error = isRecord(value) ? value.error : undefined;
    if (res.status !== 200 || (error !== undefined && error !== null)) {
      const message = typeof error === 'string' ? error : text.slice(0, QUOTED_BODY_CHARS);
      throw new ToolFailure(`${what} ${res.status} ${message}`);
    }
    return value;
  }
}

/** Why a request got no answer, in words (a timeout, a refused connection, a name that does not resolve). */
function causeOf(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  const cause = err.cause;
  if (cause?.message) return cause.code && !cause.message.includes(cause.code) ? `${cause.code} ${cause.message}` : cause.message;
  return err.message ?? String(e);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
