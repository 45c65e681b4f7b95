import type { Socket } from 'node:net';

/**
 * What one direction of an emulated link does to a TCP stream, as the application on the other
 * end sees it. This kernel has no `sch_netem`, so delay, jitter and loss cannot be had from tc;
 * they are made in userspace by a proxy that holds each segment back (link-proxy.ts).
 *
 * - every segment arrives `delayMs` plus a uniform `[0, jitterMs)` late;
 * - a segment is lost with `lossPercent` % probability and its retransmission again with the same
 *   chance, each loss stalling the stream by the retransmission timeout, doubled per retry as TCP
 *   backs off (`rtoMs`, `2·rtoMs`, …, at most `maxRetransmits` times);
 * - bytes are never reordered, dropped, duplicated or changed: TCP hides all of that, so a later
 *   segment waits behind a stalled one (head-of-line blocking) and the stream only ever stalls.
 */
export interface LinkProfile {
  readonly delayMs: number;
  readonly jitterMs: number;
  readonly lossPercent: number;
  /** The first retransmission timeout (Linux's minimum RTO is 200 ms). */
  readonly rtoMs: number;
  readonly maxRetransmits: number;
}

/** A link that adds nothing. */
export const CLEAN_LINK: LinkProfile = Object.freeze({ delayMs: 0, jitterMs: 0, lossPercent: 0, rtoMs: 200, maxRetransmits: 4 });

/** An Ethernet segment's payload (1500 − IP and TCP headers with timestamps). */
export const SEGMENT_BYTES = 1448;

export function checkProfile(p: LinkProfile): LinkProfile {
  const ms = (name: string, v: number, max: number): void => {
    if (!Number.isInteger(v) || v < 0 || v > max) throw new RangeError(`link ${name} must be an integer 0..${max}, got ${v}`);
  };
  ms('delayMs', p.delayMs, 10_000);
  ms('jitterMs', p.jitterMs, 10_000);
  ms('lossPercent', p.lossPercent, 99);
  ms('rtoMs', p.rtoMs, 10_000);
  ms('maxRetransmits', p.maxRetransmits, 8);
  return p;
}

/** The most a segment can be held back under `p` (before it queues behind an earlier one). */
export function maxLatenessMs(p: LinkProfile): number {
  return p.delayMs + p.jitterMs + p.rtoMs * (2 ** p.maxRetransmits - 1);
}

/** How late one segment arrives under `p`, drawn from `rand`: delay, jitter, and the stalls of its losses. */
export function segmentLatenessMs(p: LinkProfile, rand: () => number): number {
  let late = p.delayMs + Math.floor(rand() * p.jitterMs);
  let rto = p.rtoMs;
  for (let lost = 0; lost < p.maxRetransmits && rand() * 100 < p.lossPercent; lost++) {
    late += rto;
    rto *= 2;
  }
  return late;
}

export interface ScheduledSegment {
  /** When the segment may be handed to the receiver (ms, the caller's clock). */
  readonly at: number;
  readonly bytes: Buffer;
}

/**
 * The release times of one direction's bytes: cut into segments, each held back by
 * `segmentLatenessMs`, never released before the one sent ahead of it (TCP delivers in order).
 */
export class LinkSchedule {
  private lastRelease = -Infinity;

  constructor(
    private readonly profile: () => LinkProfile,
    private readonly rand: () => number,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {}

  /** The segments of `chunk`, sent at `now`, with their release times (non-decreasing). */
  admit(chunk: Buffer, now: number): ScheduledSegment[] {
    const p = this.profile();
    const out: ScheduledSegment[] = [];
    for (let off = 0; off < chunk.length; off += this.segmentBytes) {
      const at = Math.max(this.lastRelease, now + segmentLatenessMs(p, this.rand));
      this.lastRelease = at;
      out.push({ at, bytes: chunk.subarray(off, Math.min(chunk.length, off + this.segmentBytes)) });
    }
    return out;
  }

  /** When a FIN sent at `now` arrives: after every byte before it, and itself one segment late. */
  finish(now: number): number {
    this.lastRelease = Math.max(this.lastRelease, now + segmentLatenessMs(this.profile(), this.rand));
    return this.lastRelease;
  }
}

/** Past this many bytes held back the sender is paused (the proxy stays bounded, as a TCP window does). */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

/**
 * Carries `from`'s bytes to `to` on a `LinkSchedule`: one timer for the head of the queue, an end
 * of stream passed on after the bytes before it, and `stop()` clearing everything held.
 */
export class ShapedPipe {
  private readonly queue: ScheduledSegment[] = [];
  private queued = 0;
  private timer: NodeJS.Timeout | undefined;
  private endAt: number | undefined;
  private stopped = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly schedule: LinkSchedule,
    private readonly now: () => number = () => performance.now(),
  ) {
    from.on('data', (chunk: Buffer) => this.push(chunk));
    from.on('end', () => {
      this.endAt = schedule.finish(this.now());
      this.arm();
    });
  }

  /** Bytes read from `from` and not yet written to `to`. */
  get heldBytes(): number {
    return this.queued;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
    this.queued = 0;
  }

  private push(chunk: Buffer): void {
    if (this.stopped) return;
    for (const s of this.schedule.admit(chunk, this.now())) {
      this.queue.push(s);
      this.queued += s.bytes.length;
    }
    if (this.queued > HIGH_WATER_BYTES) this.from.pause();
    this.arm();
  }

  private arm(): void {
    if (this.stopped || this.timer) return;
    const next = this.queue[0]?.at ?? this.endAt;
    if (next === undefined) return;
    this.timer = setTimeout(() => this.release(), Math.max(0, Math.ceil(next - this.now())));
  }

  private release(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const now = this.now();
    while (this.queue.length > 0 && this.queue[0]!.at <= now) {
      const s = this.queue.shift()!;
      this.queued -= s.bytes.length;
      if (!this.to.destroyed) this.to.write(s.bytes);
    }
    if (this.queued <= HIGH_WATER_BYTES / 2 && this.from.isPaused()) this.from.resume();
    if (this.queue.length === 0 && this.endAt !== undefined && this.endAt <= now) {
      this.endAt = undefined;
      if (!this.to.destroyed) this.to.end();
      return;
    }
    this.arm();
  }
}
