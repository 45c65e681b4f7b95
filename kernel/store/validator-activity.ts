import { LRUCache } from 'lru-cache';
import { jsonRecord } from '../state/record-codec.js';
import type { KvOp, KvStore } from '../state/kv.js';
import { metaKey, readU64, u64, validatorActivityKey, validatorWindowKey } from './keys.js';

/** How many committed blocks `trust_score` looks back over. */
export const TRUST_WINDOW_BLOCKS = 100;

/**
 * What a node has seen a validator do since it started counting (genesis, or the snapshot or
 * first height it counted from). Derived from committed blocks and their commit certificates,
 * kept beside them and never part of state: two nodes may hold different figures and agree on
 * every state root.
 */
export interface ValidatorActivity {
  /** Committed blocks it proposed. */
  readonly blocks_proposed: number;
  /** Its precommits in the commit certificates of committed blocks. */
  readonly votes_cast: number;
  /** Height of the last committed block it proposed or whose certificate carries its precommit; 0 if none. */
  readonly last_active: number;
  /** Its precommits in the certificates of the last TRUST_WINDOW_BLOCKS committed blocks. */
  readonly window_votes: number;
}

export const NO_VALIDATOR_ACTIVITY: ValidatorActivity = { blocks_proposed: 0, votes_cast: 0, last_active: 0, window_votes: 0 };

const activityCodec = jsonRecord<ValidatorActivity>();
const signersCodec = jsonRecord<string[]>();
/** First height the index counted; absent in a store written before the index existed. */
const COUNTED_FROM = metaKey('activity-from');

/** What one block's commit adds to the index: the ops for its batch and the records they write. */
export interface ActivityUpdate {
  readonly ops: readonly KvOp[];
  readonly records: ReadonlyMap<string, ValidatorActivity>;
  readonly height: number;
  readonly signers: readonly string[];
}

/**
 * The validator activity index of a chain store. Its ops go into the block's own batch, so the
 * figures always describe exactly the committed blocks (a crash leaves both or neither), and they
 * survive restarts. Records read on commit are cached write-through, like the store's totals.
 */
export class ValidatorActivityIndex {
  private readonly records = new LRUCache<string, ValidatorActivity>({ max: 10_000 });
  /** Signers of the recent blocks, so sliding the window rarely reads LevelDB. */
  private readonly windows = new LRUCache<number, readonly string[]>({ max: TRUST_WINDOW_BLOCKS + 8 });
  private from = 1;
  private fromStored = false;

  constructor(private readonly kv: KvStore) {}

  /**
   * `head` is the store's committed height. A store written before the index existed counts from
   * the next block on (recorded with that block), as a snapshot node counts from its snapshot.
   */
  async load(head: number): Promise<void> {
    const raw = await this.kv.get(COUNTED_FROM);
    this.fromStored = raw !== undefined;
    this.from = raw ? readU64(raw) : head + 1;
    this.records.clear();
    this.windows.clear();
  }

  /** The first height counted. */
  get countedFrom(): number {
    return this.from;
  }

  /** Committed blocks in the trust window this node counted, at committed height `head`. */
  windowBlocks(head: number): number {
    return Math.max(0, Math.min(TRUST_WINDOW_BLOCKS, head - this.from + 1));
  }

  async get(address: string): Promise<ValidatorActivity> {
    const cached = this.records.get(address);
    if (cached) return cached;
    const generation = this.generation;
    const raw = await this.kv.get(validatorActivityKey(address));
    const record = raw ? activityCodec.decode(raw) : NO_VALIDATOR_ACTIVITY;
    // A read that began before a block's batch and ended after it may hold the older record:
    // cached, the next block would build on it and store counts that lost that block for good.
    if (generation === this.generation) this.records.set(address, record);
    return record;
  }

  /** Counts the batches applied, so a read can tell whether one landed while it was in flight. */
  private generation = 0;

  /** The ops that count block `height`, proposed by `proposer` and certified by `signers`. */
  async update(height: number, proposer: string, signers: readonly string[]): Promise<ActivityUpdate> {
    const ops: KvOp[] = [];
    const changed = new Map<string, ValidatorActivity>();
    const edit = async (address: string, change: (r: ValidatorActivity) => ValidatorActivity): Promise<void> => {
      changed.set(address, change(changed.get(address) ?? (await this.get(address))));
    };
    const unique = [...new Set(signers)].sort();
    if (proposer !== '') await edit(proposer, (r) => ({ ...r, blocks_proposed: r.blocks_proposed + 1, last_active: height }));
    for (const v of unique) await edit(v, (r) => ({ ...r, votes_cast: r.votes_cast + 1, window_votes: r.window_votes + 1, last_active: height }));
    ops.push({ type: 'put', key: validatorWindowKey(height), value: signersCodec.encode(unique) });
    const leaving = height - TRUST_WINDOW_BLOCKS;
    if (leaving >= this.from) {
      for (const v of await this.signersAt(leaving)) await edit(v, (r) => ({ ...r, window_votes: r.window_votes - 1 }));
      ops.push({ type: 'del', key: validatorWindowKey(leaving) });
    }
    for (const [address, record] of [...changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      ops.push({ type: 'put', key: validatorActivityKey(address), value: activityCodec.encode(record) });
    }
    if (!this.fromStored) ops.push({ type: 'put', key: COUNTED_FROM, value: u64(this.from) });
    return { ops, records: changed, height, signers: unique };
  }

  /** After the batch holding `u` reached disk: the caches follow it. */
  applied(u: ActivityUpdate): void {
    this.generation++;
    for (const [address, record] of u.records) this.records.set(address, record);
    this.windows.set(u.height, u.signers);
    this.windows.delete(u.height - TRUST_WINDOW_BLOCKS);
    this.fromStored = true;
  }

  /** The op that makes a store installed from a snapshot at `height` count from the block after it. */
  startAfterSnapshot(height: number): KvOp {
    return { type: 'put', key: COUNTED_FROM, value: u64(height + 1) };
  }

  private async signersAt(height: number): Promise<readonly string[]> {
    const cached = this.windows.get(height);
    if (cached) return cached;
    const raw = await this.kv.get(validatorWindowKey(height));
    return raw ? signersCodec.decode(raw) : [];
  }
}
