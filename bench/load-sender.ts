import type { BenchHttpClient } from './http-client.js';
import { flatOutLanes } from './load-plan.js';

/** A pre-signed transfer: its account's index and its canonical JSON text. */
export interface Transfer {
  readonly i: number;
  readonly body: string;
  /** A fungible-token `transfer` call (`--token-mix`), not a plain transfer. */
  readonly token?: boolean;
}

/** Overload answers (mempool full, rate limited): flat out waits this long and sends the same transfer again... */
const OVERLOAD_RETRY_MS = 20;
/** ...and for at most this long past the phase's end. */
const OVERLOAD_RETRY_FOR_MS = 30_000;
/** Rejections and failures printed per phase; the rest are only counted. */
const PRINTED = 3;

/**
 * Submits a phase's transfers and keeps its tally: each accepted id with its send time, what
 * was refused or failed, and when the last acceptance came back.
 */
export class Submitter {
  /** Transaction id → send time (performance.now()). */
  readonly submitted = new Map<string, number>();
  /** The accepted ids that are token transfers (`Transfer.token`). */
  readonly tokenIds = new Set<string>();
  sent = 0;
  rejected = 0;
  failed = 0;
  /** 503/429 answers that flat out sent again. */
  overloaded = 0;
  private lastAnswer: number;

  constructor(
    private readonly http: BenchHttpClient,
    private readonly urlOf: (t: Transfer) => string,
    private readonly start: number,
  ) {
    this.lastAnswer = start;
  }

  /** Accepted per second from the phase's start to the last acceptance; 0 if none. */
  get acceptedRate(): number {
    return this.submitted.size > 0 ? (this.submitted.size * 1000) / (this.lastAnswer - this.start) : 0;
  }

  /**
   * One transfer: accepted, refused, or failed to reach the server. With `retryOverloadUntil`
   * (flat out), an overload answer's transfer is sent again until then (dropping it would leave
   * its account a nonce gap), after which it counts as refused: a devnet that stays overloaded
   * (consensus stalled, no node reachable) ends the phase.
   */
  async submit(t: Transfer, retryOverloadUntil?: number): Promise<void> {
    this.sent++;
    const url = this.urlOf(t);
    for (;;) {
      const t0 = performance.now();
      try {
        const res = await this.http.postJsonText(url, t.body);
        if (res.status === 200) {
          this.submitted.set(res.body.tx_hash as string, t0);
          if (t.token) this.tokenIds.add(res.body.tx_hash as string);
          this.lastAnswer = performance.now();
        } else if (retryOverloadUntil !== undefined && (res.status === 503 || res.status === 429) && performance.now() < retryOverloadUntil) {
          this.overloaded++;
          await new Promise((r) => setTimeout(r, OVERLOAD_RETRY_MS));
          continue;
        } else {
          this.rejected++;
          if (this.rejected <= PRINTED) console.error(`rejected (${res.status}): ${JSON.stringify(res.body)}`);
        }
      } catch (err: unknown) {
        this.failed++;
        if (this.failed <= PRINTED) console.error(`submission failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      return;
    }
  }
}

/** Open loop: transfer k leaves at start + k / rate, whatever the answers to earlier ones. */
export async function sendAtRate(plan: readonly Transfer[], rate: number, start: number, s: Submitter): Promise<void> {
  const sends: Array<Promise<void>> = [];
  for (let k = 0; k < plan.length; k++) {
    const wait = start + (k * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((res) => setTimeout(res, wait));
    sends.push(s.submit(plan[k]!));
  }
  await Promise.all(sends);
}

/** What flat out sends through: `Submitter`, or a test's recorder. */
export interface TransferSink {
  submit(t: Transfer, retryOverloadUntil?: number): Promise<void>;
}

/** Flat out's lanes over one pool and how far each got: a later phase on the same pool goes on from there. */
export class FlatOutCursor {
  private readonly lanes: number[][];
  private readonly pos: number[];

  constructor(
    private readonly pool: readonly Transfer[],
    accounts: number,
    inflight: number,
  ) {
    this.lanes = flatOutLanes(pool.length, accounts, inflight);
    this.pos = this.lanes.map(() => 0);
  }

  get exhausted(): boolean {
    return this.lanes.every((lane, j) => this.pos[j] === lane.length);
  }

  /**
   * Closed loop until `end`: each lane sends its next transfer when its last one is answered,
   * until the time is up or the pool runs out.
   */
  async send(end: number, s: TransferSink): Promise<void> {
    await Promise.all(
      this.lanes.map(async (lane, j) => {
        while (this.pos[j]! < lane.length && performance.now() < end) {
          await s.submit(this.pool[lane[this.pos[j]!++]!]!, end + OVERLOAD_RETRY_FOR_MS);
        }
      }),
    );
  }
}
