import type { NodeAnswer, NodeClient } from './node-client.js';
import type { ResponseCache } from './response-cache.js';
import type { ShardRouter } from './shard-router.js';
import { pathSegment, segmentProblem } from './upstream-path.js';

const ACCOUNT_PATH = /^\/api\/v1\/accounts\/([^/?]+)/;

/**
 * Cached GETs against the nodes, shared by the REST proxy, the socket RPC methods and the
 * poller, so all three serve byte-identical data (a `new_block` equals GET /blocks/:height).
 * Concurrent misses for one key share one node request.
 */
export class NodeReads {
  private readonly inFlight = new Map<string, Promise<NodeAnswer>>();

  constructor(
    private readonly client: NodeClient,
    private readonly cache: ResponseCache,
    private readonly router: ShardRouter,
    private readonly primary: string,
  ) {}

  /** `pathAndQuery` as the client sent it (still percent-encoded). */
  get(pathAndQuery: string): Promise<NodeAnswer> {
    return this.cached(pathAndQuery, pathAndQuery, this.nodesForPath(pathAndQuery));
  }

  /** The same read from the nodes of one shard (what only that shard's nodes know, e.g. its height). */
  getOnShard(shard: number, pathAndQuery: string): Promise<NodeAnswer> {
    return this.cached(`${pathAndQuery}#shard=${shard}`, pathAndQuery, this.router.nodesOfShard(shard));
  }

  private cached(key: string, pathAndQuery: string, nodes: readonly string[]): Promise<NodeAnswer> {
    const hit = this.cache.get(key);
    if (hit) return Promise.resolve(hit);
    const running = this.inFlight.get(key);
    if (running) return running;
    const p = this.client
      .request(nodes, 'GET', pathAndQuery)
      .then((answer) => {
        this.cache.put(key, answer);
        return answer;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /** Uncached, for data that must be fresh (the poller's /health). */
  fresh(pathAndQuery: string): Promise<NodeAnswer> {
    return this.client.request([this.primary], 'GET', pathAndQuery);
  }

  /** Account data lives on the shard owning the account; everything else on the primary node. */
  private nodesForPath(pathAndQuery: string): readonly string[] {
    if (this.router.shardCount > 1) {
      const m = ACCOUNT_PATH.exec(pathAndQuery);
      if (m) return this.router.nodesFor(safeDecode(m[1]!));
    }
    return this.router.shardCount === 1 ? this.router.nodesOfShard(0) : [this.primary];
  }

  /**
   * The path an account is read with (balance pushes, get_account, the REST proxy: all build it
   * with pathSegment, so one spelling is cached). Throws 400 for an address that is no segment.
   */
  accountPath(address: string): string {
    return `/api/v1/accounts/${pathSegment('address', address)}`;
  }

  /** Drops an account's cached answer; an address that cannot be a segment was never cached. */
  forgetAccount(address: string): void {
    if (segmentProblem(address) !== undefined) return;
    this.cache.forget(this.accountPath(address));
    this.cache.forget(`${this.accountPath(address)}?prove=true`);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
