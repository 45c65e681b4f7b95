/**
 * Copy-on-write view of chain state. A block executes on one overlay over committed state; each
 * transaction on a child overlay that is merged on success and dropped on failure, so a failed
 * transaction's writes vanish without undo logs. Keys are strings (`<namespace>/<key>`); values
 * bytes; `null` marks a deletion.
 */
export interface StateSource {
  get(key: string): Promise<Uint8Array | undefined>;
  /** Every live key with the prefix, ascending by key, with its value. */
  scan(prefix: string): Promise<Array<[string, Uint8Array]>>;
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

  async scan(prefix: string): Promise<Array<[string, Uint8Array]>> {
    const merged = new Map<string, Uint8Array>();
    for (const [k, v] of await this.parent.scan(prefix)) merged.set(k, v);
    for (const [k, v] of this.writes) {
      if (!k.startsWith(prefix)) continue;
      if (v === null) merged.delete(k);
      else merged.set(k, v);
    }
    // Sorted explicitly: consensus code must never depend on Map insertion order.
    return [...merged.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
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
   * counts negative). What the kernel prices as state growth (chain/state-growth.ts).
   */
  async growth(): Promise<bigint> {
    let bytes = 0;
    for (const [k, v] of this.writes) {
      const old = await this.parent.get(k);
      const keyBytes = Buffer.byteLength(k, 'utf8');
      bytes += (v === null ? 0 : keyBytes + v.length) - (old === undefined ? 0 : keyBytes + old.length);
    }
    return BigInt(bytes);
  }

  /** The writes of this overlay, sorted by key: what a block commits. */
  changes(): Array<[string, Uint8Array | null]> {
    return [...this.writes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}
