import { hashOfCanonical } from '../tx/hash.js';
import type { RelayedTx } from './envelope.js';

/**
 * Transaction texts this node holds for compact proposals without having admitted them: fetched
 * from a peer when a proposal names ids not pending here, or replayed from the WAL after a
 * restart. Each text is filed under the hash this node computed from it, so a peer cannot put a
 * text under another id. Bounded by text length; the oldest entries go first.
 */
export class FetchedTxs {
  private readonly texts = new Map<string, RelayedTx>();
  private chars = 0;

  constructor(private readonly maxChars = 64 * 1024 * 1024) {}

  /** Files a text under its own hash and returns that hash. */
  add(tx: RelayedTx): string {
    const hash = hashOfCanonical(tx.canonical);
    if (this.texts.has(hash)) return hash;
    this.texts.set(hash, { origin: tx.origin, canonical: tx.canonical });
    this.chars += tx.canonical.length;
    for (const [h, t] of this.texts) {
      if (this.chars <= this.maxChars) break;
      this.texts.delete(h);
      this.chars -= t.canonical.length;
    }
    return hash;
  }

  get(hash: string): RelayedTx | undefined {
    return this.texts.get(hash);
  }

  get size(): number {
    return this.texts.size;
  }
}
