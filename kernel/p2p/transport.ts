/**
 * The one surface consensus and gossip are written against. The in-memory simulator
 * (`kernel/p2p/memory/`) and the TCP transport (`kernel/p2p/tcp/`) both satisfy it, so the same
 * node code runs under deterministic simulation and on a real network.
 *
 * Messages are opaque bytes: framing, authentication of the peer link and size limits belong to
 * the transport; what the bytes mean (and whether they are signed) belongs to the layer above.
 */

/**
 * Called once per received message. A handler may return a promise: a transport that awaits it
 * gets back-pressure for free, and the simulator relies on awaiting it to stay deterministic
 * (the next event does not run until the node has finished with this one).
 */
export type MessageHandler = (from: string, msg: Uint8Array) => void | Promise<void>;

export interface Transport {
  /** This node's peer id (for validators, the validator address). */
  readonly selfId: string;
  /** Best-effort delivery to every currently known peer except this node. */
  broadcast(msg: Uint8Array): void;
  /** Best-effort delivery to one peer; unknown peers are ignored, not an error. */
  send(peer: string, msg: Uint8Array): void;
  /** Registers the receive handler; registering again replaces the previous one. */
  onMessage(cb: MessageHandler): void;
  /** Peer ids this node can currently address, sorted so callers iterate deterministically. */
  peers(): string[];
}
