import { LRUCache } from 'lru-cache';
import type { AddressTotals, ChainStoreOptions } from './chain-store.js';

/** A state key known not to exist, as `ChainStoreCaches.state` remembers it. */
export const ABSENT = Symbol('absent');

const DEFAULT_RECENT_BLOCKS = 64;
const DEFAULT_RECENT_TX_BYTES = 8 * 1024 * 1024;
const DEFAULT_STATE_ENTRIES = 200_000;

/**
 * What ChainStore keeps in memory of what it wrote, so the reads every block and every poll make
 * skip LevelDB. Only ChainStore fills them, in the same step as the write that reached disk.
 */
export class ChainStoreCaches {
  /**
   * Committed state values by key (`ABSENT` for a key known not to exist). Every write of state
   * goes through ChainStore (block, genesis, snapshot), which updates the cache in the same step,
   * so reads never see a value LevelDB does not hold. Saves a LevelDB read per account touch on
   * admission, execution and mempool re-checks.
   */
  readonly state: LRUCache<string, Uint8Array | typeof ABSENT>;
  /** Per-address totals, written through on commit like `state` (read for every transaction a block stores). */
  readonly totals = new LRUCache<string, AddressTotals>({ max: 100_000 });
  /**
   * The bytes just written for recent blocks and transactions, so reads of a new block (the
   * gateway's poll, explorers, a client confirming its transfers, /health) skip LevelDB. Bytes,
   * not decoded records: each read still decodes its own copy, exactly what LevelDB would return.
   * Filled only by a commit that reached disk; a miss reads LevelDB and is not remembered.
   */
  readonly recentBlockBytes: LRUCache<number, Uint8Array>;
  readonly recentTxBytes: LRUCache<string, Uint8Array>;
  /** Each recent block's event records as written (empty for most), read by the gateway's poll of every block. */
  readonly recentEventBytes: LRUCache<number, readonly Uint8Array[]>;

  constructor(options: Pick<ChainStoreOptions, 'recentBlocks' | 'recentTxBytes' | 'stateEntries'>) {
    this.state = new LRUCache({ max: options.stateEntries ?? DEFAULT_STATE_ENTRIES });
    this.recentBlockBytes = new LRUCache({ max: options.recentBlocks ?? DEFAULT_RECENT_BLOCKS });
    this.recentTxBytes = new LRUCache({ maxSize: options.recentTxBytes ?? DEFAULT_RECENT_TX_BYTES, sizeCalculation: (v) => v.length });
    this.recentEventBytes = new LRUCache({ max: options.recentBlocks ?? DEFAULT_RECENT_BLOCKS });
  }
}
