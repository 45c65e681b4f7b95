import type { MessageHandler, Transport } from '../transport.js';
import type { Prng } from './prng.js';
import type { Scheduler } from './scheduler.js';

/**
 * An in-memory network on top of the discrete-event scheduler. Each copy of a message gets its
 * own random delay (so messages reorder), may be dropped or duplicated, and is lost if a
 * partition separates sender and receiver when it would arrive. All randomness comes from the
 * seeded PRNG, so a seed fixes every delivery.
 */
export interface LinkConditions {
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  /** Probability of losing a copy, in thousandths. */
  readonly dropPerMille: number;
  /** Probability of delivering a copy twice, in thousandths. */
  readonly duplicatePerMille: number;
}

export const PERFECT_LINKS: LinkConditions = { minDelayMs: 1, maxDelayMs: 1, dropPerMille: 0, duplicatePerMille: 0 };

export interface Partition {
  /** Nodes in different groups cannot reach each other; nodes in no group reach everybody. */
  readonly groups: readonly (readonly string[])[];
  readonly fromMs: number;
  /** The partition heals at this virtual time. */
  readonly untilMs: number;
}

export interface NetworkStats {
  sent: number;
  delivered: number;
  dropped: number;
  duplicated: number;
  partitioned: number;
}

export class MemoryNetwork {
  readonly stats: NetworkStats = { sent: 0, delivered: 0, dropped: 0, duplicated: 0, partitioned: 0 };
  private readonly handlers = new Map<string, MessageHandler | null>();
  private readonly partitions: Partition[] = [];
  private sortedIds: string[] = [];
  private conditions: LinkConditions;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly prng: Prng,
    conditions: LinkConditions = PERFECT_LINKS,
  ) {
    this.conditions = checkConditions(conditions);
  }

  /** Registers `id` and returns its transport. */
  join(id: string): MemoryTransport {
    if (this.handlers.has(id)) throw new Error(`node ${id} already joined`);
    this.handlers.set(id, null);
    this.sortedIds = [...this.handlers.keys()].sort();
    return new MemoryTransport(this, id);
  }

  setConditions(conditions: LinkConditions): void {
    this.conditions = checkConditions(conditions);
  }

  addPartition(p: Partition): void {
    if (p.untilMs < p.fromMs) throw new RangeError('partition heals before it starts');
    this.partitions.push(p);
  }

  /** Latest heal time of any partition (0 when none). */
  healedAtMs(): number {
    return this.partitions.reduce((m, p) => Math.max(m, p.untilMs), 0);
  }

  ids(): string[] {
    return [...this.sortedIds];
  }

  /** Sorted ids without `self`; a fresh array each call. */
  peersOf(self: string): string[] {
    return this.sortedIds.filter((id) => id !== self);
  }

  canReach(from: string, to: string, atMs: number): boolean {
    for (const p of this.partitions) {
      if (atMs < p.fromMs || atMs >= p.untilMs) continue;
      const gf = p.groups.findIndex((g) => g.includes(from));
      const gt = p.groups.findIndex((g) => g.includes(to));
      if (gf !== -1 && gt !== -1 && gf !== gt) return false;
    }
    return true;
  }

  setHandler(id: string, cb: MessageHandler): void {
    this.handlers.set(id, cb);
  }

  send(from: string, to: string, msg: Uint8Array): void {
    if (from === to || !this.handlers.has(to)) return;
    this.stats.sent++;
    const c = this.conditions;
    if (this.prng.chance(c.dropPerMille)) {
      this.stats.dropped++;
      return;
    }
    // Receivers get their own copy: a node that mutated a buffer must not affect another.
    this.deliverAfter(this.prng.range(c.minDelayMs, c.maxDelayMs), from, to, msg.slice());
    if (this.prng.chance(c.duplicatePerMille)) {
      this.stats.duplicated++;
      this.deliverAfter(this.prng.range(c.minDelayMs, c.maxDelayMs), from, to, msg.slice());
    }
  }

  private deliverAfter(delayMs: number, from: string, to: string, msg: Uint8Array): void {
    this.scheduler.schedule(delayMs, () => {
      if (!this.canReach(from, to, this.scheduler.now)) {
        this.stats.partitioned++;
        return;
      }
      const cb = this.handlers.get(to);
      if (cb === null || cb === undefined) return;
      this.stats.delivered++;
      // Returned, not awaited here: the scheduler awaits it, so the next event waits for the node.
      return cb(from, msg);
    });
  }
}

export class MemoryTransport implements Transport {
  constructor(
    private readonly network: MemoryNetwork,
    readonly selfId: string,
  ) {}

  broadcast(msg: Uint8Array): void {
    for (const peer of this.peers()) this.network.send(this.selfId, peer, msg);
  }

  send(peer: string, msg: Uint8Array): void {
    this.network.send(this.selfId, peer, msg);
  }

  onMessage(cb: MessageHandler): void {
    this.network.setHandler(this.selfId, cb);
  }

  peers(): string[] {
    return this.network.peersOf(this.selfId);
  }
}

function checkConditions(c: LinkConditions): LinkConditions {
  const ints = [c.minDelayMs, c.maxDelayMs, c.dropPerMille, c.duplicatePerMille];
  if (!ints.every((n) => Number.isSafeInteger(n) && n >= 0)) throw new RangeError('link conditions must be non-negative integers');
  if (c.maxDelayMs < c.minDelayMs) throw new RangeError('maxDelayMs below minDelayMs');
  if (c.dropPerMille > 1000 || c.duplicatePerMille > 1000) throw new RangeError('per-mille values must be at most 1000');
  return c;
}
