import { seriesIn } from './labelled-series.js';

/** What one LevelDB store of a validator had done at one scrape. */
export interface StoreWork {
  readonly pointReads: number;
  /** Reads answered absent by the store's key filter, without LevelDB (`chain_store_reads_skipped_total`). */
  readonly skippedReads: number;
  readonly compactionReadBytes: number;
  readonly compactionWrittenBytes: number;
}

/** `chain_store_point_reads_total`, `chain_store_reads_skipped_total` and `chain_store_compaction_bytes_total` of a /metrics text, by store (chain, tree). */
export function storeWorkIn(text: string): Map<string, StoreWork> {
  const out = new Map<string, { pointReads: number; skippedReads: number; compactionReadBytes: number; compactionWrittenBytes: number }>();
  const of = (store: string) => {
    let w = out.get(store);
    if (!w) out.set(store, (w = { pointReads: 0, skippedReads: 0, compactionReadBytes: 0, compactionWrittenBytes: 0 }));
    return w;
  };
  for (const s of seriesIn(text, 'chain_store_point_reads_total')) of(s.labels.get('store') ?? '').pointReads = s.value;
  for (const s of seriesIn(text, 'chain_store_reads_skipped_total')) of(s.labels.get('store') ?? '').skippedReads = s.value;
  for (const s of seriesIn(text, 'chain_store_compaction_bytes_total')) {
    const w = of(s.labels.get('store') ?? '');
    if (s.labels.get('direction') === 'read') w.compactionReadBytes = s.value;
    else if (s.labels.get('direction') === 'written') w.compactionWrittenBytes = s.value;
  }
  return out;
}

/**
 * One line: per store, the point reads and the compaction bytes between the scrapes, per committed
 * transaction and per validator (every validator executes and stores each). Reads say what a
 * transfer costs the libuv pool and the main thread's round trips; compaction bytes what it costs
 * LevelDB's background thread, which at 10^6 accounts is most of what it adds beside the main thread.
 */
export function formatStoreWork(before: ReadonlyArray<ReadonlyMap<string, StoreWork>>, after: ReadonlyArray<ReadonlyMap<string, StoreWork>>, txs: number, what: string): string {
  if (txs <= 0 || after.length === 0) return `LevelDB work: no ${what} to divide by`;
  const sums = new Map<string, { reads: number; skipped: number; read: number; written: number }>();
  after.forEach((stores, i) => {
    for (const [store, end] of stores) {
      const start = before[i]?.get(store) ?? { pointReads: 0, skippedReads: 0, compactionReadBytes: 0, compactionWrittenBytes: 0 };
      const sum = sums.get(store) ?? { reads: 0, skipped: 0, read: 0, written: 0 };
      sum.reads += end.pointReads - start.pointReads;
      sum.skipped += end.skippedReads - start.skippedReads;
      sum.read += end.compactionReadBytes - start.compactionReadBytes;
      sum.written += end.compactionWrittenBytes - start.compactionWrittenBytes;
      sums.set(store, sum);
    }
  });
  if (sums.size === 0) return 'LevelDB work: the validators report no stores';
  const per = txs * after.length;
  const parts = [...sums]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([store, s]) => `${store} store ${(s.reads / per).toFixed(2)} point reads${s.skipped > 0 ? ` (${(s.skipped / per).toFixed(2)} more answered absent by its key filter)` : ''}, compaction ${(s.read / per / 1024).toFixed(1)} KB read / ${(s.written / per / 1024).toFixed(1)} KB written`);
  return `LevelDB per ${what}, per validator (chain_store_point_reads_total, chain_store_reads_skipped_total, chain_store_compaction_bytes_total): ${parts.join('; ')}`;
}
