import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatStoreWork, storeWorkIn } from './store-work.js';

const MB = 1024 * 1024;
const scrape = (chainReads: number, treeReads: number, treeWrittenMb: number): string => `chain_store_point_reads_total{store="chain"} ${chainReads}
chain_store_point_reads_total{store="tree"} ${treeReads}
chain_store_reads_skipped_total{store="chain"} ${chainReads * 3}
chain_store_reads_skipped_total{store="tree"} 0
chain_store_compaction_bytes_total{store="chain",direction="read"} ${2 * MB}
chain_store_compaction_bytes_total{store="chain",direction="written"} ${3 * MB}
chain_store_compaction_bytes_total{store="tree",direction="read"} 0
chain_store_compaction_bytes_total{store="tree",direction="written"} ${treeWrittenMb * MB}
chain_store_files{store="chain",level="0"} 1
`;

test('reads each store\'s point reads and compaction bytes of a scrape', () => {
  const w = storeWorkIn(scrape(10, 20, 5));
  assert.deepEqual(w.get('chain'), { pointReads: 10, skippedReads: 30, compactionReadBytes: 2 * MB, compactionWrittenBytes: 3 * MB });
  assert.deepEqual(w.get('tree'), { pointReads: 20, skippedReads: 0, compactionReadBytes: 0, compactionWrittenBytes: 5 * MB });
  assert.equal(storeWorkIn('chain_height 3\n').size, 0, 'a node without the series reports no stores');
});

test('a phase\'s figures are the differences per store, per transaction and per validator', () => {
  const before = [storeWorkIn(scrape(100, 0, 1)), storeWorkIn(scrape(0, 0, 0))];
  // 2 validators × 512 transactions: chain 1,024 + 1,024 reads, tree 2,048 + 2,048, tree written (2 + 2) MB.
  const after = [storeWorkIn(scrape(1_124, 2_048, 3)), storeWorkIn(scrape(1_024, 2_048, 2))];
  assert.equal(
    formatStoreWork(before, after, 512, 'transfer'),
    'LevelDB per transfer, per validator (chain_store_point_reads_total, chain_store_reads_skipped_total, chain_store_compaction_bytes_total): chain store 2.00 point reads (6.00 more answered absent by its key filter), compaction 0.0 KB read / 0.0 KB written; tree store 4.00 point reads, compaction 0.0 KB read / 4.0 KB written',
  );
  assert.match(formatStoreWork(before, after, 0, 'transfer'), /no transfer to divide by/);
});
