import type { Logger } from 'pino';
import { Agent, request as undiciRequest } from 'undici';
import { ChainError } from '../../kernel/sdk.js';
import { parseJsonLossless } from './lossless-json.js';
import { assertForwardable } from './upstream-path.js';

/** What a node answered: its status and its parsed JSON body, passed through unchanged. */
export interface NodeAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Raised when no node answered at all; clients see 503. */
export const noNodeReachable = (): ChainError => new ChainError(503, 'no node reachable', 'the gateway could not connect to any node; retry shortly');
/**
 * Raised when a submission reached a node and no answer came in time; clients see 503. The node
 * may still admit it, so it is not sent to another node: there it would meet itself, relayed, and
 * be refused as a duplicate of a transaction the client was never told was taken.
 */
export const nodeDidNotAnswer = (): ChainError => new ChainError(503, 'the node did not answer in time', 'the submission may still be admitted: look the transaction up by its hash before sending it again');
/** Raised when a node answered with something that is not JSON; clients see 502. */
export const nodeAnsweredGarbage = (): ChainError => new ChainError(502, 'the node answered with an invalid response', 'bad gateway: the node did not return JSON');

/** A node that refused a connection or timed out is skipped for this long unless every node is down. */
const DOWN_FOR_MS = 3000;

/**
 * HTTP client to nodes. The gateway never decides chain state, so everything it serves comes
 * through here. A list of URLs is tried in order, skipping nodes that just failed, so one dead
 * node of a shard does not fail requests another node can answer. A submission goes to the next
 * node only when the last never took it (the connection failed): one that timed out may still be
 * admitted there (`nodeDidNotAnswer`).
 *
 * undici's `request` over one keep-alive pool, not `fetch()`: every submission the gateway
 * forwards is one of these, and fetch's WHATWG stream layers cost 750–1 150 µs of CPU a 10 KB
 * POST on loopback against 200–260 µs here (bench/load.bench.ts --via gateway prints the
 * gateway's CPU per transaction).
 */
export class NodeClient {
  private readonly downUntil = new Map<string, number>();
  private readonly pool: Agent;

  /**
   * `timeoutMs` bounds a whole request to one node: connecting, sending, and the answer in full.
   * `sourceAddress` is the local address every connection leaves from (`NODE_SOURCE_ADDRESS`), so
   * a node on the same host can exempt this gateway and no other local client (decisions.md §93).
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly log: Logger,
    sourceAddress?: string,
  ) {
    this.pool = new Agent({ connect: { timeout: timeoutMs }, ...(sourceAddress !== undefined ? { localAddress: sourceAddress } : {}) });
  }

  /**
   * `sentText`, when given, is the client's own JSON text of `body` and is forwarded byte for
   * byte: re-serialising it would cost a stringify per submission and could change what the
   * client signed (an integer beyond 2^53 parses to a nearby double).
   */
  async request(urls: readonly string[], method: 'GET' | 'POST' | 'PUT' | 'PATCH', pathAndQuery: string, body?: unknown, sentText?: string): Promise<NodeAnswer> {
    assertForwardable(pathAndQuery);
    const now = Date.now();
    const up = urls.filter((u) => (this.downUntil.get(u) ?? 0) <= now);
    // When all are marked down, try them all anyway: the mark is a hint, not a verdict.
    const order = up.length > 0 ? [...up, ...urls.filter((u) => !up.includes(u))] : [...urls];
    const payload = body === undefined ? undefined : (sentText ?? JSON.stringify(body));
    let garbage = false;
    for (const base of order) {
      let status: number;
      let text: string;
      // One signal for the whole exchange: a node that trickles its answer is cut off too.
      const signal = AbortSignal.timeout(this.timeoutMs);
      try {
        const res = await undiciRequest(base + pathAndQuery, {
          method,
          headers: payload === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
          body: payload,
          dispatcher: this.pool,
          signal,
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (e: unknown) {
        this.downUntil.set(base, Date.now() + DOWN_FOR_MS);
        this.log.debug({ node: base, err: e instanceof Error ? e.message : String(e) }, 'node unreachable');
        // A read is asked again elsewhere; a write that timed out may have been taken (nodeDidNotAnswer).
        if (method !== 'GET' && signal.aborted) throw nodeDidNotAnswer();
        continue;
      }
      this.downUntil.delete(base);
      if (status === 204 || text.length === 0) return { status, body: null };
      try {
        return { status, body: parseJsonLossless(text) };
      } catch {
        garbage = true;
        this.log.warn({ node: base, status, path: pathAndQuery }, 'node answered with a body that is not JSON');
      }
    }
    throw garbage ? nodeAnsweredGarbage() : noNodeReachable();
  }

  /**
   * A GET whose 200 answer is passed through as it arrives (the AI export's JSON Lines): the
   * first reachable node; `headers` are forwarded (the export's Authorization). A non-200 answer
   * is read whole and parsed like `request`'s. The body is pulled only as fast as the caller
   * consumes it, so the gateway holds no more than a chunk; a pause longer than the timeout ends it.
   */
  async stream(urls: readonly string[], pathAndQuery: string, headers: Record<string, string>): Promise<{ status: number; contentType: string; chunks: AsyncIterable<Uint8Array> } | NodeAnswer> {
    assertForwardable(pathAndQuery);
    for (const base of urls) {
      try {
        const res = await undiciRequest(base + pathAndQuery, { method: 'GET', headers, dispatcher: this.pool, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
        if (res.statusCode === 200) return { status: 200, contentType: String(res.headers['content-type'] ?? 'application/x-ndjson'), chunks: res.body };
        const text = await res.body.text();
        return { status: res.statusCode, body: text.length === 0 ? null : parseJsonLossless(text) };
      } catch (e: unknown) {
        this.log.debug({ node: base, err: e instanceof Error ? e.message : String(e) }, 'node unreachable for a stream');
      }
    }
    throw noNodeReachable();
  }

  /** Closes the pooled connections (the gateway's shutdown). */
  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** The `error` message of a node's error body, or a generic one naming the status. */
export function errorMessageOf(answer: NodeAnswer): string {
  const b = answer.body;
  if (typeof b === 'object' && b !== null && typeof (b as { error?: unknown }).error === 'string') return (b as { error: string }).error;
  return `node answered ${answer.status}`;
}

/** A node answer as a result: 2xx gives the body, anything else the node's status and message. */
export function resultOf(answer: NodeAnswer): unknown {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  const extra = isObject(answer.body) ? answer.body : undefined;
  throw new ChainError(answer.status, errorMessageOf(answer), typeof extra?.hint === 'string' ? extra.hint : undefined);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
