import type { Logger } from 'pino';
import type { ChainStore } from '../store/chain-store.js';

/**
 * `ChainStore.settleTree` once genesis or a snapshot install has committed a whole tree. Only
 * speed rides on it, and the commit stands whatever becomes of it, so a failure is logged, not
 * thrown: the blocks that follow merge the tree's files instead.
 */
export async function settleTreeAfter(what: 'genesis' | 'the install', store: ChainStore, log: Logger): Promise<void> {
  try {
    await store.settleTree();
  } catch (e) {
    log.warn({ err: e }, `compacting the state tree after ${what} failed: blocks will merge its files instead`);
  }
}
