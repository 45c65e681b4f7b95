import { NodeClient, NodeRefusal } from '../client/node-client.js';

/** What `chain relay-shards` reads and posts on one shard; an in-memory fake stands in for it in tests. */
export interface ShardApi {
  readonly shard: number;
  /** The answer's body; a status other than 2xx throws NodeRefusal (404 included), no answer at all an Error. */
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

/**
 * One shard's nodes, tried in the order the shard map lists them (the gateway's failover): a node
 * that answers, even with a refusal, decides; one that cannot be reached passes the request to
 * the next. The relay transactions are unsigned and idempotent at the chain (a second commit or
 * ack is a 409), so trying the next node after a timeout never moves anything twice.
 */
export class ShardEndpoint implements ShardApi {
  private readonly clients: NodeClient[];

  constructor(
    readonly shard: number,
    urls: readonly string[],
    timeoutMs?: number,
  ) {
    if (urls.length === 0) throw new Error(`shard ${shard} has no node`);
    this.clients = urls.map((u) => new NodeClient(u, timeoutMs));
  }

  get<T>(path: string): Promise<T> {
    return this.each((c) => c.get<T>(path));
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.each((c) => c.post<T>(path, body));
  }

  private async each<T>(call: (c: NodeClient) => Promise<T>): Promise<T> {
    const causes: string[] = [];
    for (const c of this.clients) {
      try {
        return await call(c);
      } catch (e) {
        if (e instanceof NodeRefusal) throw e;
        causes.push((e as Error).message);
      }
    }
    throw new Error(`no node of shard ${this.shard} answered: ${causes.join('; ')}`);
  }
}
