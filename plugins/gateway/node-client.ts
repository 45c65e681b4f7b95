import type { Logger } from 'pino';
import { ChainError } from '../../kernel/errors.js';
import { parseJsonLossless } from './lossless-json.js';

/** What a node answered: its status and its parsed JSON body, passed through unchanged. */
export interface NodeAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Raised when no node answered at all; clients see 503. */
export const noNodeReachable = (): ChainError => new ChainError(503, 'no node reachable', 'the gateway could not connect to any node; retry shortly');
/** Raised when a node answered with something that is not JSON; clients see 502. */
export const nodeAnsweredGarbage = (): ChainError => new ChainError(502, 'the node answered with an invalid response', 'bad gateway: the node did not return JSON');

/** A node that refused a connection or timed out is skipped for this long unless every node is down. */
const DOWN_FOR_MS = 3000;

/**
 * HTTP client to nodes. The gateway never decides chain state, so everything it serves comes
 * through here. A list of URLs is tried in order, skipping nodes that just failed, so one dead
 * node of a shard does not fail requests another node can answer.
 */
export class NodeClient {
  private readonly downUntil = new Map<string, number>();

  constructor(
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  async request(urls: readonly string[], method: 'GET' | 'POST', pathAndQuery: string, body?: unknown): Promise<NodeAnswer> {
    const now = Date.now();
    const up = urls.filter((u) => (this.downUntil.get(u) ?? 0) <= now);
    // When all are marked down, try them all anyway: the mark is a hint, not a verdict.
    const order = up.length > 0 ? [...up, ...urls.filter((u) => !up.includes(u))] : [...urls];
    let garbage = false;
    for (const base of order) {
      let res: Response;
      try {
        res = await fetch(base + pathAndQuery, {
          method,
          headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (e: unknown) {
        this.downUntil.set(base, Date.now() + DOWN_FOR_MS);
        this.log.debug({ node: base, err: e instanceof Error ? e.message : String(e) }, 'node unreachable');
        continue;
      }
      let text: string;
      try {
        text = await res.text();
      } catch {
        this.downUntil.set(base, Date.now() + DOWN_FOR_MS);
        continue;
      }
      this.downUntil.delete(base);
      if (res.status === 204 || text.length === 0) return { status: res.status, body: null };
      try {
        return { status: res.status, body: parseJsonLossless(text) };
      } catch {
        garbage = true;
        this.log.warn({ node: base, status: res.status, path: pathAndQuery }, 'node answered with a body that is not JSON');
      }
    }
    throw garbage ? nodeAnsweredGarbage() : noNodeReachable();
  }
}

/** The `error` message of a node's error body, or a generic one naming the status. */
export function errorMessageOf(answer: NodeAnswer): string {
  const b = answer.body;
  if (typeof b === 'object' && b !== null && typeof (b as { error?: unknown }).error === 'string') return (b as { error: string }).error;
  return `node answered ${answer.status}`;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
