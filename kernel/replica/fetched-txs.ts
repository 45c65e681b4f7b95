import type { RelayedTx } from './envelope.js';

/**
 * Transaction texts this node holds for compact proposals without having admitted them: fetched
 * from a peer when a proposal names ids not pending here, or replayed from the WAL after a
 * restart. Each text is filed under the hash this node computed from it and under its origin, so
 * a peer can neither put a text under another id nor shadow the right origin with a wrong one.
 * Bounded by text length; the oldest entries go first.
 */
export class FetchedTxs {
  private readonly texts = new Map<string, RelayedTx>();
  private chars = 0;

  constructor(private readonly maxChars = 64 * 1024 * 1024) {}

  /** Files a text under `hash`, which the caller computed from that very text. */
  put(hash: string, tx: RelayedTx): void {
    const key = originKey(tx.origin, hash);
    if (this.texts.has(key)) return;
    this.texts.set(key, { origin: tx.origin, canonical: tx.canonical });
    this.chars += tx.canonical.length;
    for (const [k, t] of this.texts) {
      if (this.chars <= this.maxChars) break;
      this.texts.delete(k);
      this.chars -= t.canonical.length;
    }
  }

  /** The text of `hash` with that origin; without one, either. */
  get(hash: string, origin?: RelayedTx['origin']): RelayedTx | undefined {
    if (origin) return this.texts.get(originKey(origin, hash));
    return this.texts.get(originKey('signed', hash)) ?? this.texts.get(originKey('system', hash));
  }

  get size(): number {
    return this.texts.size;
  }
}

/** A text's key: its origin and the hash computed from it (the same id under two origins is two texts). */
export function originKey(origin: RelayedTx['origin'], hash: string): string {
  return `${origin}:${hash}`;
}
