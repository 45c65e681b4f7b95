import type { Chain } from '../chain/chain.js';
import type { ChainQueries } from '../chain/chain-queries.js';
import { blockView, txView } from './views.js';

/**
 * Committed blocks as the REST views show them, one height at a time, for plugins that serve
 * history in bulk (the AI export): a reader walks a range without holding more than one block.
 */
export interface ChainHistory {
  /** Height of the last committed block. */
  head(): number;
  /** The block as `GET /api/v1/blocks/:height` shows it, or undefined above the head or below what is kept. */
  block(height: number): Promise<Record<string, unknown> | undefined>;
  /** Its transactions as `GET /api/v1/blocks/:height/transactions` lists them. */
  transactions(height: number): Promise<Array<Record<string, unknown>>>;
}

/** `store`: the committed chain (ChainQueries, or the store itself where the node is composed, before the chain exists). */
export function chainHistory(store: Pick<ChainQueries, 'head' | 'getBlock' | 'getTxFields'>, chain: () => Chain, shard: number): ChainHistory {
  return {
    head: () => store.head.height,
    async block(height) {
      const b = await store.getBlock(height);
      return b ? blockView(b) : undefined;
    },
    async transactions(height) {
      const b = await store.getBlock(height);
      if (!b) return [];
      const out: Array<Record<string, unknown>> = [];
      for (const hash of b.tx_hashes) {
        const st = await store.getTxFields(hash);
        if (st) out.push(txView({ tx: st.tx, receipt: st.receipt, blockTimestamp: b.header.timestamp, gas: chain().gasOf(st.tx), shard, type: chain().typeOf(st.tx.target) }));
      }
      return out;
    },
  };
}
