import type { ChainHistory } from './history.js';
import type { Registry } from 'prom-client';
import type { Chain } from '../chain/chain.js';
import type { QueryService } from './queries.js';
import type { IndexReader } from '../store/plugin-index.js';
import type { NodeConfig } from '../config/schema.js';
import type { NodeMetrics } from './metrics.js';
import type { SignatureProvider } from '../crypto/provider.js';
import type { NodeKey } from './node-key.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { ConsensusStatus } from '../replica/consensus-status.js';
import type { ShardView } from '../crypto/shard.js';
import type { StateKeysProof } from './proven-reads.js';

/**
 * What a plugin may ask of the chain beyond its hooks: the head, and queueing a transaction it
 * creates (a faucet credit), which every validator re-checks in checkTx.
 */
export interface ChainAccess {
  readonly chainId: string;
  readonly head: Readonly<{ height: number; state_root: string; block_hash: string }>;
  admitSystem(target: string, from: string, to: string, value: bigint, body: Record<string, unknown>, receivedAt: number): Promise<{ readonly hash: string }>;
  /**
   * The key a key-derived `address` signed with (the key it derives from), found among the last
   * `within` transactions this node indexed for it; undefined for an address that signed none of
   * them. Node-local, for views (an identity's keys): consensus never reads it.
   */
  derivedKeyOf(address: string, within?: number): Promise<string | undefined>;
  /**
   * The operations of one type waiting in this node's mempool, in arrival order, each with its
   * hash and body as submitted (the client's fields and the envelope's). Node-local, for views
   * (the exchange's open batch window, decisions.md §60): consensus never reads it.
   */
  pendingOperations(name: string): ReadonlyArray<{ readonly hash: string; readonly body: Readonly<Record<string, unknown>> }>;
  /**
   * The system transactions (unsigned relay writes a plugin admits with `admitSystem`) of one
   * target waiting in this node's mempool, whichever node they were submitted to, in arrival
   * order, each with its hash and body. Node-local, for admission's "already pending" answers
   * (decisions.md §76): consensus never reads it.
   */
  pendingSystem(target: string): ReadonlyArray<{ readonly hash: string; readonly body: Readonly<Record<string, unknown>> }>;
}

/** The services a node offers its plugins through `api.services`. */
export interface NodeServices {
  readonly chain: ChainAccess;
  /** Reads of committed state pinned to one height, with the calling plugin's context. */
  readonly query: QueryService;
  /** A plugin's node-local index (what it staged with `ctx.index` in consensus hooks), read only. */
  index(plugin: string): IndexReader;
  readonly config: Readonly<NodeConfig>;
  readonly consensus: ConsensusStatus;
  readonly metrics: NodeMetrics;
  readonly registry: Registry;
  readonly provider: SignatureProvider;
  /** The node's own key: its address, public key and statements of the allowed domains signed with it (node-key.ts). */
  readonly nodeKey: NodeKey;
  /** Wall clock for display fields and rate limits only; never consensus input. */
  now(): number;
  /** Committed blocks and their transactions, one height at a time (bulk exports). */
  readonly history: ChainHistory;
  /**
   * The shard this node serves and what it owns (decisions.md §71): what a route checks a request
   * against before it reaches the chain (`foreignSenderError`, `foreignReadError`). Hooks read the
   * same view as `ctx.shard`.
   */
  readonly shards: ShardView;
  /**
   * decisions.md §84's proof object (`height` = head − 1, `state_root`, one entry per key,
   * `header`, `certificate`, `validators`) for state keys (`stateKey(namespace, key)`), with no
   * answer around it: what a cross-shard bundle carries (§75). 503 before a block is committed.
   */
  proveKeys(keys: readonly string[]): Promise<StateKeysProof>;
}

/** Who this node is and which genesis it runs (decisions.md §83: `/status`, `GET /api/v1/genesis`). */
export interface NodeIdentity {
  /** The genesis document as loaded. */
  readonly genesis: GenesisDoc;
  readonly genesisHash: string;
  /** First 20 bytes of SHA3-256 of the node's key, 40 hex (decisions.md §82). */
  readonly nodeId: string;
  /** The `.node` the node's key file names. */
  readonly nodeAddress: string;
  readonly moniker: string | null;
  /** `<node_id>@<host>:<port>` peers are told to dial. */
  p2pEndpoint(): string;
}

/** The kernel's own routes see the whole chain; plugins see `NodeServices`. */
export interface KernelServices extends NodeServices {
  readonly chain: Chain;
  readonly node: NodeIdentity;
}
