/**
 * Discrete-event scheduler over virtual time. Events run one at a time, in (time, insertion)
 * order, and each is awaited before the next starts, so a run is a pure function of its seed:
 * no real timers, no wall clock, no interleaving left to the event loop.
 */
export type SimEvent = () => void | Promise<void>;

interface Entry {
  readonly time: number;
  readonly seq: number;
  readonly run: SimEvent;
}

export interface RunOptions {
  /** Stop before running any event later than this virtual time. */
  readonly untilMs?: number;
  /** Checked after every event; stops the run when true. */
  readonly stopWhen?: () => boolean;
  /** Safety net against a run that never quiesces. */
  readonly maxEvents?: number;
}

export class Scheduler {
  private heap: Entry[] = [];
  private seq = 0;
  private nowMs = 0;
  private executed = 0;

  get now(): number {
    return this.nowMs;
  }

  get eventsRun(): number {
    return this.executed;
  }

  get pending(): number {
    return this.heap.length;
  }

  /** Runs `run` after `delayMs` of virtual time (0 = after everything already due now). */
  schedule(delayMs: number, run: SimEvent): void {
    if (!Number.isSafeInteger(delayMs) || delayMs < 0) throw new RangeError(`delay must be a non-negative integer, got ${delayMs}`);
    this.push({ time: this.nowMs + delayMs, seq: this.seq++, run });
  }

  at(timeMs: number, run: SimEvent): void {
    this.schedule(Math.max(0, timeMs - this.nowMs), run);
  }

  async run(opts: RunOptions = {}): Promise<void> {
    const maxEvents = opts.maxEvents ?? Number.MAX_SAFE_INTEGER;
    let count = 0;
    while (this.heap.length > 0) {
      const top = this.heap[0] as Entry;
      if (opts.untilMs !== undefined && top.time > opts.untilMs) {
        this.nowMs = opts.untilMs;
        return;
      }
      this.pop();
      this.nowMs = top.time;
      this.executed++;
      const pending = top.run();
      // Awaiting only real promises: a synchronous event then costs no microtask turn.
      if (pending instanceof Promise) await pending;
      if (++count >= maxEvents) throw new Error(`scheduler: more than ${maxEvents} events at virtual time ${this.nowMs}`);
      if (opts.stopWhen?.()) return;
    }
    if (opts.untilMs !== undefined) this.nowMs = Math.max(this.nowMs, opts.untilMs);
  }

  private less(a: Entry, b: Entry): boolean {
    return a.time !== b.time ? a.time < b.time : a.seq < b.seq;
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i] as Entry, h[parent] as Entry)) break;
      [h[i], h[parent]] = [h[parent] as Entry, h[i] as Entry];
      i = parent;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop() as Entry;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l] as Entry, h[m] as Entry)) m = l;
      if (r < h.length && this.less(h[r] as Entry, h[m] as Entry)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m] as Entry, h[i] as Entry];
      i = m;
    }
  }
}
