import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap, SyncHook } from 'tapable';
import type { ChainError } from './errors.js';
import type { BlockEvent, BlockInfo, BlockRecord, ChainEvent, Receipt, Tx } from './chain/types.js';
import type { IndexWriter } from './chain/index-stage.js';
import type { ParamReader } from './state/params.js';
import type { ReadonlyStore, Store } from './state/prefixed-store.js';
import type { AccountsReader, AccountsWriter } from './state/accounts.js';
import type { RouteTable } from './node/route-table.js';
import type { GenesisDoc } from './config/genesis.js';

/**
 * Every hook point between the kernel and its plugins, declared once and frozen (the shape of
 * webpack's `Compiler.hooks`). The consensus hooks follow CometBFT's ABCI++ boundary:
 * checkTx ~ CheckTx, prepareProposal/processProposal ~ PrepareProposal/ProcessProposal,
 * beginBlock + executeTx + endBlock ~ FinalizeBlock, committed ~ after Commit.
 *
 * Contexts are scoped: the host hands each plugin's tap a context whose `store` is that plugin's
 * own namespace (see host/scoping.ts); consensus contexts carry the block so activation gating
 * and every consensus rule read height and time from the block, never from the wall clock.
 */

export type NetworkEnv = 'mainnet' | 'testnet';

/** What every hook context can read. `store` is the calling plugin's namespace. */
export interface ReadContext {
  /** Height being built or checked (last committed + 1); for queries, the last committed height. */
  readonly height: number;
  readonly env: NetworkEnv;
  readonly params: ParamReader;
  readonly accounts: AccountsReader;
  readonly store: ReadonlyStore;
  /** Another namespace, read only. */
  read(namespace: string): ReadonlyStore;
}

/** Deterministic execution contexts: beginBlock, executeTx, endBlock, evidence, initGenesis. */
export interface WriteContext extends Omit<ReadContext, 'store' | 'accounts'> {
  readonly block: BlockInfo;
  readonly store: Store;
  readonly accounts: AccountsWriter;
  /**
   * Stored with the block (its height, index, phase and, in executeTx, the transaction's hash)
   * and served by `GET /api/v1/blocks/:height/events`; consensus never reads it back. A failed
   * transaction's events are dropped. Throws for a type that is not lower_snake_case or data the
   * store cannot hold (floats), which fails the handler that emitted it.
   */
  emit(event: ChainEvent): void;
  /**
   * This plugin's node-local index (`IndexWriter`): written in the block's own atomic batch,
   * outside the state root, dropped with a failed transaction. Write-only: consensus must not
   * depend on what a node indexed. Routes read it through `chain.store.pluginIndex(name)`.
   */
  readonly index: IndexWriter;
}

export interface TxContext extends WriteContext {
  readonly tx: Tx;
}

export interface GenesisContext extends WriteContext {
  readonly genesis: GenesisDoc;
}

export interface ProposalContext extends ReadContext {
  readonly block: BlockInfo;
}

/** What a tx handler reports; gas defaults to the base gas declared for its target. */
export interface TxOutcome {
  readonly gas?: number;
}

export interface ValidatorUpdate {
  readonly address: string;
  readonly public_key: string;
  /** 0 removes the validator from the active set. */
  readonly power: bigint;
}

export interface EndBlockResult {
  readonly validatorUpdates: readonly ValidatorUpdate[];
  readonly paramUpdates: ReadonlyArray<readonly [key: string, value: bigint]>;
}

/** Verified misbehaviour included in a block. `raw` is the consensus layer's evidence object. */
export interface Evidence {
  readonly kind: 'duplicate-vote';
  readonly validator: string;
  readonly height: number;
  readonly round: number;
  /** `0x` hash identifying the evidence, so each piece applies once. */
  readonly hash: string;
  readonly raw: unknown;
}

export interface CommittedBlock {
  readonly block: BlockRecord;
  readonly txs: readonly Tx[];
  readonly receipts: readonly Receipt[];
  /** Every event of the block, as stored (execution order). */
  readonly events: readonly BlockEvent[];
}

export interface QueryContext extends ReadContext {}

export type RpcMethodHandler = (params: Record<string, unknown>) => Promise<unknown>;

/** The consensus hooks: tapped only by state plugins, in the network's ordered plugin list. */
export const CONSENSUS_HOOKS = ['initGenesis', 'checkTx', 'prepareProposal', 'processProposal', 'beginBlock', 'executeTx', 'endBlock', 'evidence'] as const;
/** The hooks a service plugin may tap. */
export const SERVICE_HOOKS = ['committed', 'routes', 'rpcMethods', 'query'] as const;
export type HookName = (typeof CONSENSUS_HOOKS)[number] | (typeof SERVICE_HOOKS)[number];

export function createHooks() {
  return Object.freeze({
    initGenesis: new AsyncSeriesHook<[GenesisContext]>(['ctx'], 'initGenesis'),
    checkTx: new AsyncSeriesBailHook<[ReadContext, Tx], ChainError | undefined>(['ctx', 'tx'], 'checkTx'),
    prepareProposal: new AsyncSeriesWaterfallHook<[Tx[], ProposalContext]>(['txs', 'ctx'], 'prepareProposal'),
    processProposal: new AsyncSeriesBailHook<[ProposalContext, readonly Tx[]], string | undefined>(['ctx', 'txs'], 'processProposal'),
    beginBlock: new AsyncSeriesHook<[WriteContext]>(['ctx'], 'beginBlock'),
    executeTx: new HookMap<AsyncSeriesBailHook<[TxContext, Tx], TxOutcome | undefined>>(
      (key: string) => new AsyncSeriesBailHook<[TxContext, Tx], TxOutcome | undefined>(['ctx', 'tx'], `executeTx:${key}`),
      'executeTx',
    ),
    endBlock: new AsyncSeriesWaterfallHook<[EndBlockResult, WriteContext]>(['result', 'ctx'], 'endBlock'),
    evidence: new AsyncSeriesHook<[WriteContext, Evidence]>(['ctx', 'evidence'], 'evidence'),
    committed: new AsyncParallelHook<[CommittedBlock]>(['committed'], 'committed'),
    routes: new SyncHook<[RouteTable]>(['routes'], 'routes'),
    rpcMethods: new HookMap<AsyncSeriesBailHook<[Record<string, unknown>], unknown>>(
      (key: string) => new AsyncSeriesBailHook<[Record<string, unknown>], unknown>(['params'], `rpcMethods:${key}`),
      'rpcMethods',
    ),
    query: new HookMap<AsyncSeriesBailHook<[QueryContext, Record<string, unknown>], unknown>>(
      (key: string) => new AsyncSeriesBailHook<[QueryContext, Record<string, unknown>], unknown>(['ctx', 'params'], `query:${key}`),
      'query',
    ),
  });
}

export type Hooks = ReturnType<typeof createHooks>;
