import type { Logger } from 'pino';
import { PollLoop } from '../relayer/poll-loop.js';
import { NodeRefusal } from '../client/node-client.js';
import { retryDelay } from '../relayer/retry-delay.js';
import type { ShardApi } from './shard-endpoint.js';

/** A validator as §84 lists it (headers, `/shards`, clients). */
export interface WireValidator {
  readonly address: string;
  readonly public_key: string;
  readonly power: number;
}

/** The part of a shard's own `/api/v1/shards` entry the relayer reads (§77). */
interface ShardEntry {
  readonly shard: number;
  readonly height: number;
  readonly validators_hash: string;
}

/** One entry of `GET /api/v1/cross-shard/clients` (§72): what a shard trusts of another. */
interface ClientEntry {
  readonly shard: number;
  readonly validators_hash: string;
  readonly trusted_height: number;
}

/** A lock as the queue lists it (§74). */
export interface LockView {
  readonly id: string;
  readonly source_shard: number;
  readonly dest_shard: number;
  readonly status: string;
  readonly deadline_height: number;
}

/** `GET /api/v1/blocks/:height/commit` (§84). */
export interface CommitAnswer {
  readonly height: number;
  readonly header: { readonly height: number; readonly validators_hash: string; readonly next_validators_hash: string } & Record<string, unknown>;
  readonly certificate: Record<string, unknown>;
  readonly validators: readonly WireValidator[];
}

export interface ShardRelayerOptions {
  /** Index s is shard s. */
  readonly shards: readonly ShardApi[];
  readonly log: Logger;
  readonly intervalMs: number;
}

/** What one shard showed at the start of a poll; absent when none of its nodes answered. */
interface ShardState {
  readonly entry: ShardEntry;
  readonly clients: ReadonlyMap<number, ClientEntry>;
}

interface Retry {
  readonly attempts: number;
  readonly notBefore: number;
}

const QUEUE_PAGE = 100;

/**
 * `chain relay-shards` (decisions.md §77): keyless, it moves cross-shard transfers along. Each
 * poll it reads every shard's own entry (its set's `validators_hash`) and its clients of the
 * others, and first sends `cross-shard/headers` where a client trusts a set the other shard no
 * longer runs (the commit of the last height that set decided, with the next set); then, per
 * shard, each lock still `locked`: without a receipt at the destination, the lock's bundle goes
 * to the destination's `commit` (past the deadline the destination writes the abort); with one,
 * the receipt's bundle goes to the source's `ack`. Everything is read from the shards at each
 * poll, and the chains decide every outcome (one receipt per lock, a settled lock is final), so
 * any number of relayers may run, and a 409 (another relayer was first, or the same submission is
 * in the pool) is the expected answer. A shard whose nodes do not answer is skipped; the others
 * go on. What it keeps is pacing only: the growing delay before a refused submission is retried,
 * and the set-change height found for a stale client.
 */
export class ShardRelayer {
  private readonly retries = new Map<string, Retry>();
  /** `<holder>|<shard>|<trusted hash>` → the height whose commit updates that client. */
  private readonly changeHeights = new Map<string, number>();
  /** The keys a poll touched: what the others keep is about settled locks or adopted sets, and goes. */
  private readonly touched = new Set<string>();
  private readonly loop: PollLoop;

  constructor(private readonly o: ShardRelayerOptions) {
    this.loop = new PollLoop(o.intervalMs, o.log, () => this.poll());
  }

  /** Polls until stop(); a failed poll is logged and the next one runs (poll-loop.ts). */
  start(): void {
    this.loop.start();
  }

  /** Ends the loop after the poll under way. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  async poll(): Promise<void> {
    this.touched.clear();
    try {
      await this.relayAll();
    } finally {
      for (const key of this.retries.keys()) if (!this.touched.has(key)) this.retries.delete(key);
      for (const key of this.changeHeights.keys()) if (!this.touched.has(key)) this.changeHeights.delete(key);
    }
  }

  private async relayAll(): Promise<void> {
    const states = await Promise.all(this.o.shards.map((api) => this.stateOf(api)));
    const stale = new Set<string>();
    for (const [holder, state] of states.entries()) {
      if (!state) continue;
      for (const client of state.clients.values()) {
        const current = states[client.shard];
        if (!current || client.validators_hash === current.entry.validators_hash) continue;
        stale.add(`${holder}|${client.shard}`);
        await this.guarded(`header update of shard ${client.shard} at shard ${holder}`, () => this.updateClient(holder, client, current.entry));
      }
    }
    for (const [source, state] of states.entries()) {
      if (!state) continue;
      await this.guarded(`locks of shard ${source}`, () => this.relayLocks(source, states, stale));
    }
  }

  /** One unit of a poll: an unreachable shard is logged and skipped, the rest of the poll goes on. */
  private async guarded(what: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      this.o.log.warn({ err: err instanceof Error ? err.message : String(err) }, `${what}: skipped this poll`);
    }
  }

  private async stateOf(api: ShardApi): Promise<ShardState | undefined> {
    try {
      const [shards, clients] = await Promise.all([api.get<{ shards?: ShardEntry[] }>('/api/v1/shards'), api.get<{ clients?: ClientEntry[] }>('/api/v1/cross-shard/clients?limit=100')]);
      const listed = (shards.shards ?? []).find((e) => e.shard === api.shard);
      if (!listed) throw new Error(`its node does not list shard ${api.shard} in /api/v1/shards (is the shard map right?)`);
      // §77 lists validators_hash in the entry; a node that does not yet has it in its head's commit header.
      const entry = typeof listed.validators_hash === 'string' ? listed : { ...listed, validators_hash: (await api.get<CommitAnswer>(`/api/v1/blocks/${listed.height}/commit`)).header.validators_hash };
      return { entry, clients: new Map((clients.clients ?? []).filter((c) => c.shard !== api.shard).map((c) => [c.shard, c])) };
    } catch (err) {
      this.o.log.warn({ shard: api.shard, err: err instanceof Error ? err.message : String(err) }, 'shard unreachable: skipped this poll');
      return undefined;
    }
  }

  /**
   * §72: the holder adopts a new set of `client.shard` from a header that the set it trusts
   * certified and that names the new set as next. That is the first height at or after
   * `trusted_height` whose `next_validators_hash` differs from the trusted hash, found by
   * bisecting the shard's commits; `next_validators` is the set that decides the height after.
   */
  private async updateClient(holder: number, client: ClientEntry, current: ShardEntry): Promise<void> {
    const src = this.o.shards[client.shard]!;
    const cacheKey = `${holder}|${client.shard}|${client.validators_hash}`;
    this.touched.add(cacheKey);
    let h = this.changeHeights.get(cacheKey);
    if (h === undefined) {
      h = await this.setChangeHeight(src, client, current.height);
      if (h === undefined) return;
      this.changeHeights.set(cacheKey, h);
    }
    if (h + 1 > current.height) return; // the next set's first block is not committed yet
    const [commit, next] = await Promise.all([src.get<CommitAnswer>(`/api/v1/blocks/${h}/commit`), src.get<CommitAnswer>(`/api/v1/blocks/${h + 1}/commit`)]);
    await this.submit(this.o.shards[holder]!, '/api/v1/cross-shard/headers', `headers ${holder}|${client.shard}|${h}`, { ...commit, next_validators: next.validators }, { holder, shard: client.shard, height: h, trusted_height: client.trusted_height });
  }

  private async setChangeHeight(src: ShardApi, client: ClientEntry, tip: number): Promise<number | undefined> {
    const names = async (height: number): Promise<boolean> => (await src.get<CommitAnswer>(`/api/v1/blocks/${height}/commit`)).header.next_validators_hash !== client.validators_hash;
    let lo = Math.max(1, client.trusted_height);
    if (lo > tip) return undefined;
    if (await names(lo)) return lo;
    if (!(await names(tip))) return undefined; // the trusted set decides again at the tip: nothing to adopt
    let hi = tip;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (await names(mid)) hi = mid;
      else lo = mid;
    }
    this.o.log.info({ shard: src.shard, trusted_height: client.trusted_height, set_change: hi }, 'a client trusts an old set: updating it through the header of the change');
    return hi;
  }

  private async relayLocks(source: number, states: ReadonlyArray<ShardState | undefined>, stale: ReadonlySet<string>): Promise<void> {
    const src = this.o.shards[source]!;
    for (const lock of await this.lockedAt(src)) {
      const dest = this.o.shards[lock.dest_shard];
      if (!dest || !states[lock.dest_shard]) continue; // unknown or unreachable destination: a later poll
      await this.guarded(`lock ${lock.id}`, () => this.relayLock(lock, src, dest, stale));
    }
  }

  private async relayLock(lock: LockView, src: ShardApi, dest: ShardApi, stale: ReadonlySet<string>): Promise<void> {
    const what = { id: lock.id, source_shard: src.shard, dest_shard: dest.shard };
    const receiptPath = `/api/v1/cross-shard/receipts/${src.shard}/${encodeURIComponent(lock.id)}`;
    const receipt = await found<{ outcome?: string }>(dest, receiptPath);
    if (receipt === null) {
      if (stale.has(`${dest.shard}|${src.shard}`)) return; // the destination would not trust the header yet
      const bundle = await found<Record<string, unknown>>(src, `/api/v1/cross-shard/transfers/${encodeURIComponent(lock.id)}/proof`);
      if (bundle === null) return;
      await this.submit(dest, '/api/v1/cross-shard/commit', `commit ${src.shard}/${lock.id}`, bundle, what);
      return;
    }
    if (stale.has(`${src.shard}|${dest.shard}`)) return;
    const bundle = await found<Record<string, unknown>>(dest, `${receiptPath}/proof`);
    if (bundle === null) return; // the receipt is not yet in the state the newest certified header carries
    await this.submit(src, '/api/v1/cross-shard/ack', `ack ${src.shard}/${lock.id}`, bundle, { ...what, outcome: receipt.outcome });
  }

  /** Every `locked` lock of a shard, oldest page last as the queue lists them (§77). */
  private async lockedAt(src: ShardApi): Promise<LockView[]> {
    const out: LockView[] = [];
    for (let offset = 0; ; offset += QUEUE_PAGE) {
      const page = await src.get<{ transfers?: LockView[]; total?: number }>(`/api/v1/cross-shard/queue?status=locked&limit=${QUEUE_PAGE}&offset=${offset}`);
      const listed = page.transfers ?? [];
      out.push(...listed.filter((l) => l.status === 'locked'));
      if (listed.length < QUEUE_PAGE || offset + listed.length >= (page.total ?? 0)) return out;
    }
  }

  /**
   * Posts one relay transaction unless it waits out its delay. A 409 (another relayer was first,
   * or it is in the pool) ends the matter; any other refusal doubles the delay before the next try.
   */
  private async submit(to: ShardApi, path: string, key: string, body: unknown, what: Record<string, unknown>): Promise<void> {
    this.touched.add(key);
    const now = Date.now();
    const retry = this.retries.get(key);
    if (retry && retry.notBefore > now) return;
    try {
      const answer = await to.post<{ tx_hash?: string; hash?: string }>(path, body);
      this.retries.set(key, { attempts: 0, notBefore: now + this.o.intervalMs });
      this.o.log.info({ shard: to.shard, path, ...what, tx_hash: answer.tx_hash ?? answer.hash }, `submitted ${path.split('/').pop()}`);
    } catch (err) {
      if (!(err instanceof NodeRefusal)) throw err;
      if (err.status === 409) {
        this.retries.delete(key);
        this.o.log.debug({ shard: to.shard, path, ...what, error: err.nodeMessage }, 'already settled or pending (409)');
        return;
      }
      const attempts = (retry?.attempts ?? 0) + 1;
      const delay = retryDelay(this.o.intervalMs, attempts);
      this.retries.set(key, { attempts, notBefore: now + delay });
      this.o.log.warn({ shard: to.shard, path, ...what, status: err.status, error: err.nodeMessage, attempts, retry_in_ms: delay }, `${path.split('/').pop()} refused`);
    }
  }
}

/** The record at `path`, or null when the shard answers 404. */
async function found<T>(api: ShardApi, path: string): Promise<T | null> {
  try {
    return await api.get<T>(path);
  } catch (err) {
    if (err instanceof NodeRefusal && err.status === 404) return null;
    throw err;
  }
}
