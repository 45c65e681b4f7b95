import { isShardOwned } from '../../kernel/sdk.js';
import type { NodeAnswer, NodeClient } from './node-client.js';
import type { ResponseCache } from './response-cache.js';
import type { ShardRouter } from './shard-router.js';
import { pathSegment, segmentProblem } from './upstream-path.js';

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
    return Promise.resolve(this.read(pathAndQuery));
  }

  /** get(), with a cached answer handed back as it is, not in a promise (the REST proxy answers a hit without a microtask hop). */
  read(pathAndQuery: string): NodeAnswer | Promise<NodeAnswer> {
    return this.cached(pathAndQuery, pathAndQuery, () => this.nodesForPath(pathAndQuery));
  }

  /** The same read from the nodes of one shard (what only that shard's nodes know, e.g. its height). */
  getOnShard(shard: number, pathAndQuery: string): Promise<NodeAnswer> {
    return Promise.resolve(this.readOnShard(shard, pathAndQuery));
  }

  /** getOnShard(), a cached answer handed back as it is (read()). */
  readOnShard(shard: number, pathAndQuery: string): NodeAnswer | Promise<NodeAnswer> {
    return this.cached(`${pathAndQuery}#shard=${shard}`, pathAndQuery, () => this.router.nodesOfShard(shard));
  }

  // The nodes are only worked out on a miss: a hit never needs them.
  private cached(key: string, pathAndQuery: string, nodes: () => readonly string[]): NodeAnswer | Promise<NodeAnswer> {
    const hit = this.cache.get(key);
    if (hit) return hit;
    const running = this.inFlight.get(key);
    if (running) return running;
    const p = this.client
      .request(nodes(), 'GET', pathAndQuery)
      .then((answer) => {
        this.cache.put(key, answer);
        return answer;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /** Uncached from the nodes of one shard (`/health?shard=`). */
  freshOnShard(shard: number, pathAndQuery: string): Promise<NodeAnswer> {
    return this.client.request(this.router.nodesOfShard(shard), 'GET', pathAndQuery);
  }

  /** Uncached, for data that must be fresh (the poller's /health). */
  fresh(pathAndQuery: string): Promise<NodeAnswer> {
    return this.client.request([this.primary], 'GET', pathAndQuery);
  }

  /**
   * decisions.md §73: a read that names an address goes to the shard that owns it (an account, a
   * contract, a session list, held transfers, `?address=` of the transaction list); everything
   * else to the primary node.
   */
  private nodesForPath(pathAndQuery: string): readonly string[] {
    if (this.router.shardCount === 1) return this.router.nodesOfShard(0);
    const named = namedAddress(pathAndQuery);
    return named === undefined ? [this.primary] : this.router.nodesFor(named);
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

/** The first address of a shard-owned kind (§71) a read names: a path segment, else the `address` query parameter. */
export function namedAddress(pathAndQuery: string): string | undefined {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const inPath = path.split('/').map(safeDecode).find(isShardOwned);
  if (inPath !== undefined) return inPath;
  const inQuery = q < 0 ? null : new URLSearchParams(pathAndQuery.slice(q + 1)).get('address');
  return inQuery !== null && isShardOwned(inQuery) ? inQuery : undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
