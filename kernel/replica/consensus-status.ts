/** What the consensus engine (the BFT replica, or the solo producer of a one-validator network without seeds) tells the RPC about itself. */
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
