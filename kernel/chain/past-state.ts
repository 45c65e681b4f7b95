import type { StateSource } from '../state/overlay.js';
import { utf8Bytes } from '../codec/utf8.js';

/**
 * A commit overtook a read of the state before the head: the reader starts again on the new
 * state (the head moved, so "the state before the head" is another height now).
 */
export class StaleRead extends Error {
  constructor() {
    super('a block was committed during the read');
    this.name = 'StaleRead';
  }
}

/** What a PastState reads: the tree at one root, and the flat head state guarded by the commit sequence. */
export interface PastStateDeps {
  /** Value of `key` under a retained root of the state tree. */
  treeGet(root: Uint8Array, key: Uint8Array): Promise<Uint8Array | undefined>;
  /** Committed (head) state. */
  readonly head: StateSource;
  /** The commit sequence: odd while a block's batch is being written, advanced by every commit. */
  sequence(): number;
}

/**
 * State as of height h = head − 1 (decisions.md §84: the newest state whose root a committed
 * header carries), for proven reads. `get` reads the state tree at h's root, which never changes.
 * `scan` reads the flat head state, whose keys differ from h's only where block h + 1 wrote
 * (`changed`): those are taken from the tree instead. A commit during a scan makes the flat read
 * of another height: the sequence number tells, and the read fails with StaleRead.
 */
export class PastState implements StateSource {
  /** Every key read with `get`, in first-read order: what a proven read's declaration is checked against. */
  readonly keysRead = new Set<string>();

  constructor(
    private readonly d: PastStateDeps,
    readonly height: number,
    readonly root: Uint8Array,
    private readonly changed: ReadonlySet<string>,
    private readonly atSequence: number,
  ) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    this.keysRead.add(key);
    return this.d.treeGet(this.root, utf8Bytes(key));
  }

  async scan(prefix: string): Promise<Array<[string, Uint8Array]>> {
    this.checkSequence();
    const rows = await this.d.head.scan(prefix);
    this.checkSequence();
    const merged = new Map<string, Uint8Array>();
    for (const [k, v] of rows) if (!this.changed.has(k)) merged.set(k, v);
    for (const k of this.changed) {
      if (!k.startsWith(prefix)) continue;
      const v = await this.d.treeGet(this.root, utf8Bytes(k));
      if (v !== undefined) merged.set(k, v);
    }
    return [...merged.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  private checkSequence(): void {
    if (this.d.sequence() !== this.atSequence) throw new StaleRead();
  }
}
