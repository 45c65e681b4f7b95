import type { TObject, TSchema } from '@sinclair/typebox';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Hooks } from './hooks.js';
import type { ParamSpec } from '../state/params.js';
import type { NodeConfig } from '../config/schema.js';
import type { OperationSpec } from '../ops/operation.js';
import type { AddressKind } from '../crypto/address.js';
import type { PluginMethods } from '../context/methods.js';
import type { RouteTable } from './route-table.js';
import type { DeclaredRoute } from './declared-route.js';
import type { DeclaredIndex, DeclaredStore } from '../state/declared-store.js';
import type { SupplyDeclaration } from '../state/supply.js';
import type { ChainError } from '../errors.js';
import type { Tx } from '../model/types.js';
import type { ShardView } from '../crypto/shard.js';
import type { QueryContext } from '../context/contexts.js';

/**
 * What a plugin is. `state` plugins change chain state and may tap the consensus hooks; `service`
 * plugins (gateway, indexers, tool servers) tap only committed/routes/rpcMethods/query. The host
 * enforces the difference when a tap is registered.
 */
export type PluginKind = 'state' | 'service';

export interface SystemAddressSpec {
  /** e.g. `chain:system.faucet`; the executeTx key its transactions dispatch to. */
  readonly address: string;
  /** Gas charged for one transaction to this address. */
  readonly gas: number;
  /**
   * Gas the transaction's `data` costs on top of `gas`, known before anything runs: as an
   * operation's `bodyGas` (kernel/ops/operation.ts), added wherever the transaction's gas counts
   * (the fee admission holds, the limit of a transaction without `gas_limit`, block packing, the
   * charge in the block). It sees the data as sent, unchecked: return a non-negative safe integer,
   * deterministically (a deploy's bytes, priced by the contracts plugin).
   */
  dataGas?(data: string | undefined): number;
  /**
   * As an operation's `viewFields` (kernel/ops/operation.ts): fields a plain transaction to this
   * address shows on `GET /api/v1/transactions/:hash`, from the data of an event it emitted (a
   * deploy's `template_fee`, decisions.md §51).
   */
  readonly viewFields?: ReadonlyArray<{ readonly field: string; readonly event: string }>;
  /**
   * As an operation's `returnsData` (kernel/ops/operation.ts). Its transactions return data (a contract call or deploy): the transaction's view shows
   * `return_data` always (decisions.md §36), `""` when no event of the transaction carried one (it
   * failed, and its events rolled back).
   */
  readonly returnsData?: boolean;
  /**
   * The `type` (decisions.md §17) a plain transaction to this address shows on
   * `GET /api/v1/transactions` and matches in `?type=`: `deploy` for `chain:system.deploy`, as the
   * deploy operation's. Without one, the address itself.
   */
  readonly txType?: string;
}

/**
 * A kind of address a plugin owns (`.app`, `.vault`, `chain:ibc.escrow.*`): plain transactions to
 * such an address dispatch to the plugin's `executeTx.for('kind:<kind>')` handler instead of the
 * kernel's transfer, and the plugin answers `ownerOf` and `recordExists` for it.
 */
export interface AddressKindSpec {
  readonly kind: Exclude<AddressKind, 'human' | 'system'>;
  /** Gas charged for one transaction to an address of this kind, before the handler reports more. */
  readonly gas: number;
  readonly description: string;
  /**
   * Coins leave an address of this kind only the plugin's own way (a vault's executed payout,
   * decisions.md §43): a plain transaction *from* one is refused with 400 and this reason, at
   * admission and in the block, before anyone judges its signature.
   */
  readonly sendRefusal?: string;
  /** As an operation's `returnsData` (kernel/ops/operation.ts): a contract's calls show `return_data` always. */
  readonly returnsData?: boolean;
  /**
   * As SystemAddressSpec's `txType`: the `type` a plain transaction to such an address shows and
   * matches in `?type=` (`transfer` for a deposit into a vault, so `?type=transfer` lists it).
   * Without one, `kind:<kind>`.
   */
  readonly txType?: string;
}

/**
 * Transfers to another shard's address (decisions.md §74), which a plugin takes over from the
 * kernel's refusal: a plain transaction whose `to` another shard owns dispatches to the plugin's
 * `executeTx.for(CROSS_SHARD_TARGET)` handler (it holds the value in a lock), at `gas_base_transfer`.
 * One plugin per network; without one such a transfer stays refused (400 with `shard`).
 */
export interface CrossShardTransferSpec {
  readonly description: string;
  /**
   * The rules such a transfer meets beyond a transfer's (§74), judged on its fields alone: the
   * 400 naming the rule it breaks, or undefined. Admission asks right after the recipient check;
   * the handler asks again in the block.
   */
  admit(tx: Pick<Tx, 'to' | 'value' | 'data'>, shards: ShardView): ChainError | undefined;
  /** The fields `POST /api/v1/transactions` answers besides a transfer's (`dest_shard`); `receiver_balance` is null. */
  answer(tx: Pick<Tx, 'to'>, shards: ShardView): Readonly<Record<string, unknown>>;
  /** What `GET /api/v1/transactions/:hash` adds for one (`cross_shard`), read from state as it now stands; undefined while it is pending. */
  view(ctx: QueryContext, txHash: string): Promise<Readonly<Record<string, unknown>> | undefined>;
  /** `cross_shard` of this shard's `GET /api/v1/shards` entry. */
  totals(ctx: QueryContext): Promise<Readonly<Record<string, unknown>>>;
}

/**
 * An event type a plugin emits (`ctx.emit`), declared so that observers know it without reading
 * the plugin: the gateway relays every `socket` event it finds in a block to its WebSocket
 * clients as `{type, data}`. `defineEvent` (typed-event.ts) declares one with a schema for its
 * data; a plugin that declares its stores emits only declared events, with data the schema
 * accepts (plugin-boundary.ts). Plugins not converted yet declare `fields` alone, which describe.
 */
export interface PluginEventSpec {
  /** lower_snake_case, at most 48 characters (EVENT_TYPE_PATTERN). */
  readonly type: string;
  readonly description: string;
  /** Keys of `data`. */
  readonly fields: readonly string[];
  /** Pushed to the gateway's socket clients when a block carrying it is committed. */
  readonly socket?: boolean;
  /** The schema of `data` (TypeBox), from `defineEvent`. */
  readonly data?: TObject;
}

export interface PluginDefinition<Options = Record<string, unknown>, Services = unknown> {
  readonly name: string;
  readonly kind: PluginKind;
  readonly description: string;
  /** Plugins that must be enabled and listed earlier in the network's ordered plugin list. */
  readonly dependencies?: readonly string[];
  readonly params?: readonly ParamSpec[];
  readonly systemAddresses?: readonly SystemAddressSpec[];
  /**
   * Types of the unsigned system transactions this plugin creates (the faucet's `faucet`). Only a
   * declared type is admitted, relayed or executed as a system transaction: anything else a peer
   * or a proposer sends unsigned is refused, so no handler meant for signed transactions (a
   * transfer to an address kind, an operation) can be reached without a signature.
   */
  readonly systemTransactions?: readonly string[];
  /** Signed operations (decisions.md §16): the kernel serves, authorises, verifies and dispatches them. */
  readonly operations?: readonly OperationSpec<any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- each spec checks its own body type
  /**
   * The governance parameter naming the shard that holds this plugin's records (the assets
   * plugin's `dex_shard`, decisions.md §54), one of its own `params`. A node whose shard
   * (`CHAIN_SHARD_ID`, 0 unsharded) is not that value refuses the plugin's operations with 403
   * naming the parameter, at admission and in the block; the gateway sends the plugin's
   * operations and `routes` to a node of that shard. Absent: every shard serves them (an
   * operation goes to its actor's shard).
   */
  readonly shardParam?: string;
  /**
   * The read routes the plugin serves (`defineRoute`), declared up front as well as served in its
   * `routes` tap: the gateway, which boots no state plugin, proxies each GET here to the nodes
   * (part 1: served by both), to the plugin's shard when it declares `shardParam`. The host
   * refuses a listed route the plugin does not serve. A route part 1 marks Node only
   * (`nodeOnly`) is not forwarded: listed, the gateway answers it 404 saying so.
   */
  readonly routes?: readonly DeclaredRoute[];
  /** Transfers to other shards' addresses, which this plugin locks and relays (decisions.md §74). */
  readonly crossShardTransfers?: CrossShardTransferSpec;
  /**
   * Gas of its system transactions (an unsigned relay write, decisions.md §76): counted against
   * `max_block_gas` when blocks are packed and listed under `operations` in the gas estimate; no
   * fee is charged for it.
   */
  readonly systemTransactionGas?: Readonly<Record<string, number>>;
  /** Address kinds whose transactions this plugin handles. */
  readonly addressKinds?: readonly AddressKindSpec[];
  /** The events this plugin emits (`defineEvent`). */
  readonly events?: readonly PluginEventSpec[];
  /**
   * The stores of its chain state (`defineStore`): its state layout. Declaring them (an empty list
   * for a plugin that keeps no state) holds the plugin to its declarations: every key its
   * `ctx.store` reads or writes must lie in one of them, `ctx.read(other)` is refused, and it may
   * emit only the events it declares (kernel/host/plugin-boundary.ts). Leave it out only in a
   * plugin not converted yet.
   */
  readonly stores?: readonly DeclaredStore[];
  /** The stores of its node-local index (`defineIndex`, `ctx.index`), held to them as `stores` are. */
  readonly indexes?: readonly DeclaredIndex[];
  /** Methods this plugin offers other plugins (`defineMethods`; state plugins only). */
  readonly methods?: PluginMethods;
  /**
   * Coins it holds outside accounts and creates or destroys beside fees and `ctx.burn`
   * (kernel/state/supply.ts): what `chain audit`, the history checker and the tests' supply model
   * sum. A plugin that debits an account into its own records, or credits one from nothing, must
   * declare it (test/supply-declarations.test.ts).
   */
  readonly supply?: SupplyDeclaration;
  /** Schema of `options` in the network config; defaults are applied before register runs. */
  readonly optionsSchema?: TSchema;
  register(api: PluginApi<Options, Services>): void | Promise<void>;
}

export interface PluginApi<Options = Record<string, unknown>, Services = unknown> {
  readonly name: string;
  readonly kind: PluginKind;
  readonly options: Options;
  readonly config: Readonly<NodeConfig>;
  readonly hooks: Hooks;
  readonly log: Logger;
  readonly metrics: Registry;
  /** What the process offers its plugins (the node's chain services, the gateway's client...). */
  readonly services: Services;
  /** Runs when the plugin unloads or the host closes, last registered first. */
  onClose(fn: () => Promise<void> | void): void;
  /** For a service plugin that serves its own port (the gateway): service plugins loading and unloading at runtime. */
  readonly runtime: PluginRuntime;
}

/**
 * What the host tells a plugin that mounts routes on its own server about service plugins loaded
 * and unloaded at runtime (SIGHUP): mount with `mountRoutes(server, table, runtime.servesRoutesOf)`,
 * and mount `runtime.routesOf(name)` when `onServiceLoaded` names a plugin.
 */
export interface PluginRuntime {
  /** False for a route whose owner is a service plugin that is not loaded now. */
  servesRoutesOf(owner: string): boolean;
  /** Called with each service plugin loaded after boot, once its register() has run. */
  onServiceLoaded(fn: (name: string) => void): void;
  /** The routes that plugin's `routes` taps add, alone. */
  routesOf(name: string): RouteTable;
}

/** Identity helper that keeps a plugin definition's option type checked at the definition site. */
export function definePlugin<Options = Record<string, unknown>, Services = unknown>(def: PluginDefinition<Options, Services>): PluginDefinition<Options, Services> {
  return def;
}
