/**
 * Where the chain's writes stand, for a read that must not straddle one (a proven read of the
 * state before the head, PastState's guard): a sequence number, odd while a batch is being
 * written and advanced by every write, the commits run one after another, and the keys the
 * head block wrote.
 */
export class CommitProgress {
  private seq = 0;
  private lock: Promise<unknown> = Promise.resolve();
  /** The keys the head block wrote: where the state before it differs from the head's. Unknown until this process commits a block. */
  private changed: { readonly height: number; readonly keys: ReadonlySet<string> } | null = null;

  /** Odd while a batch is being written; advanced by every write. */
  get sequence(): number {
    return this.seq;
  }

  get lastChanged(): { readonly height: number; readonly keys: ReadonlySet<string> } | null {
    return this.changed;
  }

  /** Runs `commit` after the commits queued before it; a failed one does not stop the next. */
  serialize<T>(commit: () => Promise<T>): Promise<T> {
    const run = this.lock.then(commit);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Settles when the commits queued so far have. */
  settled(): Promise<unknown> {
    return this.lock;
  }

  /** Brackets one batch's write with the sequence; `changed`: the block's keys, once written. */
  async writing<T>(write: () => Promise<T>, changed?: { readonly height: number; readonly keys: ReadonlySet<string> }): Promise<T> {
    this.seq++;
    try {
      const out = await write();
      if (changed) this.changed = changed;
      return out;
    } finally {
      this.seq++;
    }
  }
}
