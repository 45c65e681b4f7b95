import type { Registry } from 'prom-client';
import type { Chain } from '../chain/chain.js';
import type { NodeConfig } from '../config/schema.js';
import type { NodeMetrics } from './metrics.js';
import type { SignatureProvider } from '../crypto/provider.js';

/** What the consensus engine tells the RPC about itself (single validator now, BFT later). */
export interface ConsensusStatus {
  round(): number;
  peers(): PeerView[];
  /** Blocks this node knows it is behind the network (catch-up), 0 when in step. */
  behind(): number;
}

export interface PeerView {
  id: string;
  address: string;
  direction: 'inbound' | 'outbound';
  connected_since: number;
}

/** The services a node offers its plugins through `api.services`. */
export interface NodeServices {
  readonly chain: Chain;
  readonly config: Readonly<NodeConfig>;
  readonly consensus: ConsensusStatus;
  readonly metrics: NodeMetrics;
  readonly registry: Registry;
  readonly provider: SignatureProvider;
  /** Wall clock for display fields and rate limits only; never consensus input. */
  now(): number;
}
