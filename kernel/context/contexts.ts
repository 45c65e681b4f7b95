import type { ChainError } from '../errors.js';
import type { BlockEvent, BlockInfo, ChainEvent, Evidence, Tx } from '../model/types.js';
import type { Validator } from '../consensus/types.js';
import type { IndexWriter } from '../state/index-stage.js';
import type { ParamReader } from '../state/params.js';
import type { ReadonlyStore, Store } from '../state/prefixed-store.js';
import type { AccountsReader, AccountsWriter } from '../state/accounts.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { Signer } from './signer.js';
import type { PluginScheduleChange, PluginScheduleEntry } from './schedule.js';
import type { ReadMethodCalls, WriteMethodCalls } from './methods.js';
import type { ValidatorSetReader } from '../state/validator-reader.js';
import type { ShardView } from '../crypto/shard.js';

/**
 * What the kernel hands a plugin's hooks and methods: the contexts, and the types they name.
 * Contexts are scoped: the host hands each plugin's tap a context whose `store` is that plugin's
 * own namespace (see host/scoping.ts); consensus contexts carry the block so activation gating
 * and every consensus rule read height and time from the block, never from the wall clock. The
 * hook points themselves are host/hooks.ts.
 */

export type NetworkEnv = 'mainnet' | 'testnet';

/** What every hook context can read. `store` is the calling plugin's namespace. */
export interface ReadContext {
  /** Height being built or checked (last committed + 1); for queries, the last committed height. */
  readonly height: number;
  readonly env: NetworkEnv;
  /**
   * The shard whose chain this is and what it owns (decisions.md §71): `ctx.shard.owns(address)`.
   * Bound to the genesis, so the same on every validator of the shard: a plugin judges by it at
   * admission and again in the block (a record is created only on the shard that owns it).
   */
  readonly shard: ShardView;
  readonly params: ParamReader;
  readonly accounts: AccountsReader;
  readonly store: ReadonlyStore;
  /** Another namespace, read only. */
  read(namespace: string): ReadonlyStore;
  /**
   * Other plugins' read methods, run on their own namespace over the state this context reads,
   * when the offering plugin is active at `height`: `ctx.methods.of(stakingMethods).selfStake(a)`.
   */
  readonly methods: ReadMethodCalls;
  /** The consensus validator set in this state: the latest, or the one in force at a height. */
  readonly validators: ValidatorSetReader;
  /**
   * Where coins sent to an address go (decisions.md §30, §39): whether it may be paid, and the
   * account a payment lands in now (a registered name's owner). The rules of the kernel's plain
   * transfer, for a plugin that pays out (a vault).
   */
  readonly recipients: RecipientReader;
  /**
   * The activation schedule of state plugins in this state (the kernel's record, read only): what
   * a plugin that proposes schedule changes judges them against (`readPluginSchedule`).
   */
  pluginSchedule(): Promise<PluginScheduleEntry[]>;

  /**
   * Where a payment to `to` lands, judged as the kernel judges a plain transfer's recipient: `to`
   * itself when someone can own it (a key-derived address, an account or record that exists), its
   * owner for a `.node` (which holds no spendable balance, decisions.md §30), or the 400 a plain
   * transfer to it gets (nobody can own it). For plugins that move their own units (an asset
   * transfer) by the coin's rule.
   */
  payee(to: string): Promise<string | ChainError>;
}

/** Deterministic execution contexts: beginBlock, executeTx, endBlock, evidence, initGenesis. */
/** The kernel event `ctx.requestLightClientHeader()` stores with the block (decisions.md §64). */
export const LIGHT_CLIENT_HEADER_REQUESTED = 'light_client_header_requested';

export interface WriteContext extends Omit<ReadContext, 'store' | 'accounts' | 'methods'> {
  readonly block: BlockInfo;
  readonly store: Store;
  readonly accounts: AccountsWriter;
  /**
   * Read methods as in a read context (over this block's overlay), and the write methods of a
   * plugin this one lists in its `dependencies`, run in this context: their writes, events and
   * index writes roll back with this transaction.
   */
  readonly methods: WriteMethodCalls;
  /**
   * Stored with the block (its height, index, phase and, in executeTx, the transaction's hash)
   * and served by `GET /api/v1/blocks/:height/events`; consensus never reads it back. A failed
   * transaction's events are dropped. Throws for a type that is not lower_snake_case or data the
   * store cannot hold (floats), which fails the handler that emitted it.
   */
  emit(event: ChainEvent): void;
  /**
   * The events stored with this block so far, in their block order: beginBlock's, those of every
   * transaction that succeeded, evidence, and those endBlock taps that ran before this one (taps
   * run in the network's plugin order) emitted. Deterministic, the same on every validator, so
   * a plugin may derive state from other plugins' events without them depending on it (the AI
   * decision log). Empty in a transaction's context: a handler cannot see other transactions.
   */
  blockEvents(): readonly BlockEvent[];
  /**
   * Burns `amount` ucoin of `address` (a fee a plugin charges and destroys: the asset issue fee, the
   * exchange's protocol fee of a ucoin swap): debits it (400 when short) and counts it in the
   * block's `fees_burned`, hence in `total_burned` (decisions.md §9, §56, §59). In a transaction it
   * is counted only if the transaction succeeds (its writes roll back otherwise), and a burn from
   * the signing account is counted as what the transaction took (a session key's cap). Not in
   * `initGenesis` (no block counts it there).
   */
  burn(address: string, amount: bigint): Promise<void>;
  /**
   * Asks the validators to sign a light-client commit header at this block's height (decisions.md
   * §64): a plugin whose block writes state a counterparty must prove soon (an IBC packet
   * commitment or receipt, §66) calls it so the proof need not wait for the next interval header.
   * Recorded as the kernel event `light_client_header_requested` (`{plugin}`) stored with the
   * block; in a transaction it counts only if the transaction succeeds. Idempotent per block in
   * effect: one header per height however many ask.
   */
  requestLightClientHeader(): void;
  /**
   * Declares that `bytes` of the state this transaction stores are sized by the protocol, not
   * chosen by its sender, so its storage fee does not count them (chain/state-growth.ts): the hex
   * of an ML-DSA-65 public key the plugin records (3 904 characters), a shipped template's code,
   * a counterparty's validator keys. Everything else a transaction adds to a plugin's state is
   * priced beyond `storage_free_bytes`. Counts only if the transaction succeeds; outside a
   * signed transaction (system transactions, block phases, genesis) nothing is priced and it
   * does nothing. A whole number ≥ 0 (RangeError otherwise).
   */
  protocolSizedBytes(bytes: number): void;
  /**
   * This plugin's node-local index (`IndexWriter`): written in the block's own atomic batch,
   * outside the state root, dropped with a failed transaction. Write-only: consensus must not
   * depend on what a node indexed. Routes read it through `chain.queries.pluginIndex(name)`.
   */
  readonly index: IndexWriter;
}

export interface TxContext extends WriteContext {
  readonly tx: Tx;
  /**
   * The most gas the transaction may use: its declared `gas_limit`, else its base gas. A handler
   * doing metered work stops within it; reporting more fails the transaction out of gas. 0 for a
   * system transaction, which pays no gas (what its handler reports is not counted).
   */
  readonly gasLimit: number;
}

export interface GenesisContext extends WriteContext {
  /** This shard's part of the genesis (decisions.md §71): its validators and the accounts it owns. */
  readonly genesis: GenesisDoc;
  /** The whole document of a sharded network, every shard's validators included (the cross-shard clients' trust anchors, §72); `genesis` on one shard. */
  readonly networkGenesis: GenesisDoc;
}

/**
 * checkTx's context: committed state, plus a way to add fields to the submission response (the
 * sentinel's `sentinel_score`, `held`). Fields added when re-checking a peer's transaction or a
 * block are dropped: only the node that answers the client uses them.
 */
export interface AdmissionContext extends ReadContext {
  respond(fields: Readonly<Record<string, unknown>>): void;
}

export interface ProposalContext extends ReadContext {
  readonly block: BlockInfo;
}

/**
 * What a tx handler reports: the gas it really used, counted from the base gas declared for its
 * target up (less counts as the base). Above `ctx.gasLimit` the transaction fails out of gas: its
 * writes roll back and the fee of the whole limit is charged.
 */
export interface TxOutcome {
  readonly gas?: number;
}

/**
 * A change to the validator set, as endBlock returns it: the validator's record from now on, the
 * same record the set holds. Power 0 takes the validator out (its key is then not read).
 */
export type ValidatorUpdate = Validator;

/**
 * Evidence as the `evidence` hook receives it: verified against the validator set of its own
 * height, within `slash_evidence_window`, applied once.
 */
export interface ReportedEvidence extends Evidence {
  /**
   * Who reported it (decisions.md §24): the proposer of the block that includes it, whose owner
   * the slashing plugin pays the reporter's share.
   */
  readonly reporter: string;
}

export interface EndBlockResult {
  readonly validatorUpdates: readonly ValidatorUpdate[];
  readonly paramUpdates: ReadonlyArray<readonly [key: string, value: bigint]>;
  /** Changes to the plugin schedule (a passed `plugin:<name>` governance change, decisions.md §26). */
  readonly pluginUpdates?: readonly PluginScheduleChange[];
}

export interface QueryContext extends ReadContext {}

/**
 * Coins about to leave a transaction's signing account for another account (decisions.md §99),
 * whatever path moves them: the kernel's plain transfer, an address kind's handler (a `.node`
 * credited to its owner, the value a contract call attaches), an operation's `execute` (a deposit
 * into a pool, an escrow, a price). The kernel asks `beforeTransfer` before the coins move, so
 * every value-moving path is seen by one tap without its plugin knowing who taps.
 */
export interface TransferIntent {
  /** The account the coins leave: the transaction's signing account (or its actor). */
  readonly from: string;
  /** The account they land in: a `.node`'s owner, the contract, the pool, the escrow. */
  readonly to: string;
  /** The address the transaction named: a plain transaction's `to` (`chain:x.node`), else `to`. */
  readonly recipient: string;
  readonly value: bigint;
  readonly signer: Signer;
  /**
   * A plain payment that may wait: nothing was given for the coins, so a tap may take them over
   * (hold them) and credit `to` later. The kernel's plain transfer is one, and so is a move a
   * plugin makes with `ctx.accounts.transfer(from, to, amount, { payment: true })` (staking's
   * transfer to a `.node`). A call's attached value or an operation's deposit is not: the
   * recipient acts on the coins at once, so a tap may only let it through or refuse it.
   */
  readonly holdable: boolean;
}

/**
 * A plugin's verdict on a transfer it intercepted: it moved (or withheld) the coins itself, e.g. a
 * hold that parks them in escrow. Only for a `holdable` transfer; the kernel fails the
 * transaction of a plugin that takes over any other.
 */
export interface TransferTakeover {
  readonly handledBy: string;
}

export type RpcMethodHandler = (params: Record<string, unknown>) => Promise<unknown>;

/**
 * Where coins sent to an address go, as plugins read it (`ctx.recipients`): the same rules the
 * kernel's plain transfer follows, so a plugin paying out (a vault's payout, decisions.md §44)
 * reaches exactly whom a plain transfer would.
 */
export interface RecipientReader {
  /** Why `to` cannot be paid (400 naming it), or null. */
  problem(to: string): Promise<ChainError | null>;
  /** The account a payment to `to` lands in now (a name's owner, a `.node`'s owner, else `to`). */
  payee(to: string): Promise<string>;
  /** The account a registered name (`.human` name, `.agent`) stands for, or undefined. */
  nameTarget(address: string): Promise<string | undefined>;
  /** The name an account is shown with (its `custom_address`, decisions.md §39), `''` for none. */
  customAddress(account: string): Promise<string>;
}
