/**
 * Copy-on-write view of chain state. A block executes on one overlay over committed state; each
 * transaction on a child overlay that is merged on success and dropped on failure, so a failed
 * transaction's writes vanish without undo logs. Keys are strings (`<namespace>/<key>`); values
 * bytes; `null` marks a deletion.
 */
export interface StateSource {
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * Live keys with the prefix and their values, ascending by key (descending with `reverse`),
   * at most `limit` of them: a read of a page costs the page, not the whole prefix.
   */
  scan(prefix: string, options?: ScanOptions): Promise<Array<[string, Uint8Array]>>;
}

/** A bounded scan: the first `limit` keys in the scan's direction (all when absent). */
export interface ScanOptions {
  readonly reverse?: boolean;
  readonly limit?: number;
}

const byKey = (a: readonly [string, unknown], b: readonly [string, unknown]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** `rows` (ascending by key) in the order and number `options` ask: for sources that hold every row at hand. */
export function applyScanOptions<T extends readonly [string, unknown]>(rows: T[], options: ScanOptions = {}): T[] {
  const ordered = options.reverse ? [...rows].reverse() : rows;
  return options.limit === undefined ? ordered : ordered.slice(0, Math.max(0, options.limit));
}

export class StateOverlay implements StateSource {
  private readonly writes = new Map<string, Uint8Array | null>();

  constructor(private readonly parent: StateSource) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    if (this.writes.has(key)) return this.writes.get(key) ?? undefined;
    return this.parent.get(key);
  }

  set(key: string, value: Uint8Array): void {
    this.writes.set(key, value);
  }

  delete(key: string): void {
    this.writes.set(key, null);
  }

  /**
   * The parent's rows merged with this overlay's writes. With a `limit`, the parent is asked for
   * `limit` plus the number of keys this overlay deleted under the prefix: the deletions can hide
   * at most that many of its rows, and every key this overlay set is merged in whatever the
   * parent returns, so the first `limit` merged rows are exact and the read stays bounded.
   */
  async scan(prefix: string, options: ScanOptions = {}): Promise<Array<[string, Uint8Array]>> {
    const own: Array<[string, Uint8Array | null]> = [];
    let deleted = 0;
    for (const [k, v] of this.writes) {
      if (!k.startsWith(prefix)) continue;
      own.push([k, v]);
      if (v === null) deleted++;
    }
    const ask = options.limit === undefined ? options : { ...options, limit: options.limit + deleted };
    const merged = new Map<string, Uint8Array>();
    for (const [k, v] of await this.parent.scan(prefix, ask)) merged.set(k, v);
    for (const [k, v] of own) {
      if (v === null) merged.delete(k);
      else merged.set(k, v);
    }
    // Sorted explicitly: consensus code must never depend on Map insertion order.
    return applyScanOptions([...merged.entries()].sort(byKey), options);
  }

  /** A child overlay for one transaction. */
  child(): StateOverlay {
    return new StateOverlay(this);
  }

  /** Folds a child's writes into this overlay (the transaction succeeded). */
  absorb(child: StateOverlay): void {
    if (child.parent !== this) throw new Error('absorb: overlay is not a child of this one');
    for (const [k, v] of child.writes) this.writes.set(k, v);
  }

  /**
   * Bytes this overlay adds to its parent's state: for each key it writes, the key's and the new
   * value's UTF-8 size, less the key's and the old value's when the parent holds one (a deletion
   * counts negative). What the kernel prices as state growth (chain/state-growth.ts), over the
   * keys `counted` accepts (all by default).
   */
  async growth(counted: (key: string) => boolean = () => true): Promise<bigint> {
    let bytes = 0;
    for (const [k, v] of this.writes) {
      if (!counted(k)) continue;
      const old = await this.parent.get(k);
      const keyBytes = Buffer.byteLength(k, 'utf8');
      bytes += (v === null ? 0 : keyBytes + v.length) - (old === undefined ? 0 : keyBytes + old.length);
    }
    return BigInt(bytes);
  }

  /** The writes of this overlay, sorted by key: what a block commits. */
  changes(): Array<[string, Uint8Array | null]> {
    return [...this.writes.entries()].sort(byKey);
  }
}
