import { LRUCache } from 'lru-cache';
import { encodedReply } from '../../kernel/sdk.js';
import type { NodeAnswer } from './node-client.js';

/**
 * A cached node answer, and the HTTP reply that serves it, encoded on its first REST hit and
 * reused for every later one: a hit costs no serialisation (the socket layer reads `body` only,
 * so an entry it alone reads is never encoded).
 */
export class CachedAnswer implements NodeAnswer {
  #encoded: unknown;

  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}

  /** The reply `passThrough` answers with: the node's status and body, as bytes once. */
  reply(): unknown {
    return (this.#encoded ??= encodedReply(this.status, this.body));
  }
}

/**
 * Two bounded caches of node answers. Committed data never changes (a block at a height, a
 * confirmed transaction, its proof), so it is kept until evicted. Everything else (latest
 * blocks, accounts, lists) is only valid for the current height: the poller clears it when it
 * sees a new block, and a TTL of one poll interval bounds staleness if polling stalls. A proven
 * read (`?prove=true`, decisions.md §84) is keyed by its whole query like any read, so it is only
 * ever answered from an entry of its own request: its fields and proof of one height, together.
 */
export class ResponseCache {
  private readonly immutable: LRUCache<string, CachedAnswer>;
  private readonly volatile: LRUCache<string, CachedAnswer>;
  hits = 0;
  misses = 0;

  constructor(maxEntries: number, volatileTtlMs: number) {
    this.immutable = new LRUCache({ max: maxEntries });
    this.volatile = new LRUCache({ max: maxEntries, ttl: volatileTtlMs });
  }

  get(key: string): CachedAnswer | undefined {
    const v = this.immutable.get(key) ?? this.volatile.get(key);
    if (v) this.hits++;
    else this.misses++;
    return v;
  }

  put(key: string, answer: NodeAnswer): void {
    // Errors are never cached: a 404 for a block that does not exist yet must not outlive it.
    if (answer.status !== 200) return;
    const entry = answer instanceof CachedAnswer ? answer : new CachedAnswer(answer.status, answer.body);
    if (isImmutable(key, answer)) this.immutable.set(key, entry);
    else this.volatile.set(key, entry);
  }

  /** A new block makes every height-dependent answer stale. */
  newHeight(): void {
    this.volatile.clear();
  }

  /** A submission changes an account's pending nonce and balances before any block. */
  forget(key: string): void {
    this.volatile.delete(key);
  }

  get size(): { immutable: number; volatile: number } {
    return { immutable: this.immutable.size, volatile: this.volatile.size };
  }
}

const BLOCK = /^\/api\/v1\/blocks\/\d+(\/transactions|\/events|\/commit)?$/;
const PROOF = /^\/api\/v1\/tx\/0x[0-9a-fA-F]{64}\/proof$/;
const TX = /^\/api\/v1\/transactions\/0x[0-9a-fA-F]{64}$/;

function isImmutable(key: string, answer: NodeAnswer): boolean {
  if (BLOCK.test(key) || PROOF.test(key)) return true;
  if (TX.test(key)) {
    const status = (answer.body as { status?: unknown } | null)?.status;
    return status !== undefined && status !== 'pending';
  }
  return false;
}
