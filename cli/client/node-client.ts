/**
 * The CLI's HTTP client of a node (or the gateway, which serves the same paths): JSON in and out,
 * and a refusal carried as the node's own message and status, which the CLI prints as it is.
 */
export const DEFAULT_RPC = 'http://127.0.0.1:9933';

/** `--rpc`'s default: `CHAIN_RPC`, else the local node. */
export function defaultRpc(): string {
  return process.env.CHAIN_RPC || DEFAULT_RPC;
}

/** A node answered with an error status: its `error` message (and `hint`) as it sent them. */
export class NodeRefusal extends Error {
  constructor(
    readonly status: number,
    readonly nodeMessage: string,
    readonly hint: string | undefined,
    readonly body: unknown,
  ) {
    super(`the node answered ${status}: ${nodeMessage}${hint ? ` (hint: ${hint})` : ''}`);
    this.name = 'NodeRefusal';
  }
}

/** How long one request may take, the answer's body included. */
export const REQUEST_TIMEOUT_MS = 30_000;

export class NodeClient {
  readonly base: string;

  constructor(
    url: string,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  get<T = Record<string, unknown>>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T = Record<string, unknown>>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      // Every route answers at once (`send` waits for its block by polling): a node that never answers must not stall the CLI or a relayer poll.
      res = await fetch(`${this.base}${path}`, { method, signal: AbortSignal.timeout(this.timeoutMs), ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
    } catch (e) {
      if ((e as Error).name === 'TimeoutError') throw new Error(`${this.base} did not answer ${method} ${path} within ${this.timeoutMs} ms`);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`cannot reach ${this.base} (${cause?.code ?? cause?.message ?? (e as Error).message}): is a node running there? (--rpc or CHAIN_RPC)`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    const error = parsed !== null && typeof parsed === 'object' && typeof (parsed as { error?: unknown }).error === 'string' ? (parsed as { error: string; hint?: unknown }) : undefined;
    // Part 2: some endpoints answer `error` with status 200, so both count as a refusal.
    if (!res.ok || error) throw new NodeRefusal(res.status, error?.error ?? (typeof parsed === 'string' ? parsed.slice(0, 500) : JSON.stringify(parsed)), typeof error?.hint === 'string' ? error.hint : undefined, parsed);
    return parsed as T;
  }
}
