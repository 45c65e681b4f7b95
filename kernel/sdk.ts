/**
 * The plugin SDK: everything a plugin may use of the kernel, and the only module of `kernel/`
 * that `plugins/` imports (test/sdk-boundary.test.ts fails otherwise). What is not exported here
 * is the kernel's to change without telling plugin authors.
 *
 * A plugin is modelled on a Lisk SDK module: operations (commands) with schemas, its store (a
 * namespace of state), its events, its read routes, the methods it offers other plugins, the hooks
 * it taps (ABCI++-shaped: checkTx, beginBlock, executeTx, endBlock, evidence, committed, query),
 * and the authorization and address-kind extension points. Start at docs/architecture.md, "Writing a plugin".
 */

// Defining a plugin.
export { definePlugin } from './host/plugin.js';
export type { AddressKindSpec, PluginApi, PluginDefinition, PluginEventSpec, PluginKind, PluginRuntime, SystemAddressSpec } from './host/plugin.js';
export type { PluginScheduleChange, PluginScheduleEntry, PluginState } from './host/schedule.js';
export { changeSchedule, pluginState } from './host/schedule.js';
export { readPluginSchedule } from './host/schedule-state.js';
export { EVENT_TYPE_PATTERN, declaredEvents, type DeclaredEvent } from './host/plugin-events.js';

// Methods plugins offer one another (read: any plugin; write: plugins that depend on the offerer).
export { defineMethods } from './host/methods.js';
export type { PluginMethods, ReadMethod, ReadMethodCalls, ReadMethodsOf, WriteMethod, WriteMethodCalls, WriteMethodsOf } from './host/methods.js';

// Signed operations (decisions.md §16–19).
export { defineOperation } from './ops/operation.js';
export { ACTOR_FIELDS, VALUE_FIELDS } from './ops/registry.js';
export type { OperationInput, OperationResult, OperationSigning, OperationSpec, SignedFields } from './ops/operation.js';

// Who signed, and the authorization extension point.
export type { Signer, SignerAnswer, SignerGrant, SignerKind, SignRequest } from './auth/signer.js';
export { requireMainKey } from './auth/signer.js';
export { listMainKeys, readKeySet, writeKeySet, type KeySet } from './auth/key-set.js';

// Hooks and the contexts they receive.
export type {
  AdmissionContext,
  EndBlockResult,
  GenesisContext,
  Hooks,
  NetworkEnv,
  ProposalContext,
  QueryContext,
  ReadContext,
  ReportedEvidence,
  RpcMethodHandler,
  TransferIntent,
  TransferTakeover,
  TxContext,
  TxOutcome,
  ValidatorUpdate,
  WriteContext,
} from './hooks.js';
export type { BlockEvent, BlockInfo, BlockRecord, ChainEvent, CommittedBlock, EventPhase, Evidence, Receipt, Tx } from './chain/types.js';
export type { Validator } from './consensus/types.js';
export type { IndexWriter } from './chain/index-stage.js';
export type { IndexReader } from './store/plugin-index.js';
export { operationOf } from './chain/types.js';
export type { ReadonlyStore, Store } from './state/prefixed-store.js';
export { jsonRecord, bigintCodec, type RecordCodec } from './state/record-codec.js';
export type { ParamReader, ParamSpec } from './state/params.js';
// The price of state growth the kernel charges every transaction (docs/plugin-sdk.md, "State growth").
export { readStoragePrice, storageFee, storageFeeOf, STORAGE_BYTE_PRICE_PARAM, STORAGE_FREE_BYTES_PARAM, type StoragePrice } from './chain/state-growth.js';
export type { AccountRecord, AccountsReader, AccountsWriter } from './state/accounts.js';

// Errors every client sees, with the status the spec names.
export { ChainError, FailedWithGas, NodeFault, isChainError, badRequest, unauthorized, forbidden, notFound, conflict, payloadTooLarge, tooManyRequests, unavailable } from './errors.js';
export { ConfigError } from './config/env.js';

// Addresses, amounts, encodings.
export { ADDRESS_PREFIX, addressKind, deriveAddress, isAddress, isKeyDerivedAddress, isSystemAddress, type AddressKind } from './crypto/address.js';
export { formatCoin, parseAmountText, wireAmount } from './codec/amount.js';
export { parseHex, toHex, toHex0x } from './codec/hex.js';
export { canonicalJson, stringify } from './codec/json.js';
export { jsonTextDepth, MAX_TX_NESTING } from './codec/depth.js';
export { shardOf } from './crypto/fnv.js';
export { sha3Hex0x } from './crypto/hash.js';
export { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES, type SignatureProvider } from './crypto/provider.js';
export { isValidMnemonic, seedFromMnemonic } from './crypto/mnemonic.js';

// Node-side services and routes (state plugins' read endpoints, the faucet's test-network routes).
export { listPage, pageOf, type Page } from './node/pagination.js';
export type { NodeServices, ConsensusStatus, PeerView } from './node/services.js';
export type { ChainHistory } from './node/history.js';
export { RouteTable, type HttpMethod, type RpcHandler, type RpcRequest } from './node/route-table.js';
export { mountRoutes } from './node/mount-routes.js';
export { TEST_NETWORK_ONLY } from './node/test-network-routes.js';
export type { NodeConfig } from './config/schema.js';

// The HTTP/WebSocket adapter, for service plugins that serve their own port (the gateway).
export { createHttpServer, flexibleRateLimiter, reply, streamReply, type HttpServer, type RateLimiter, type WsConnection, type WsHandlers } from './rpc/index.js';
