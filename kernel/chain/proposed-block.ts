import type { BlockHeader, Evidence, Tx } from '../model/types.js';

/** A block as proposed (and as a committed one is sent to a peer catching up): header, transactions, evidence. */
export interface ProposedBlock {
  readonly header: BlockHeader;
  readonly hash: string;
  readonly txs: readonly Tx[];
  readonly evidence: readonly Evidence[];
}
