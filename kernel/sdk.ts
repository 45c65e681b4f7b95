/**
 * The plugin SDK: everything a plugin may use of the kernel, and the only module of `kernel/`
 * that `plugins/` imports (test/sdk-boundary.test.ts fails otherwise). What is not exported here
 * is the kernel's to change without telling plugin authors. docs/plugin-sdk.md documents every
 * export, group by group, in this order; plugins/faucet is the worked example.
 *
 * A plugin is modelled on a Lisk SDK module: its stores, events, operations (commands) and read
 * routes declared once with schemas (the metadata route and the README tables are generated from
 * the declarations), the methods it offers other plugins, the hooks it taps (ABCI++-shaped:
 * checkTx, beginBlock, executeTx, endBlock, evidence, committed, query), and the authorization
 * and address-kind extension points.
 */

// 1. Defining a plugin.
export { definePlugin } from './host/plugin.js';
export type { AddressKindSpec, CrossShardTransferSpec, PluginApi, PluginDefinition, PluginEventSpec, PluginKind, PluginRuntime, SystemAddressSpec } from './host/plugin.js';

// 2. State: stores declared with their key layout and value schema (the plugin's state layout).
export { defineIndex, defineStore, DeclaredIndex, DeclaredStore, type Party, type ScanRange, type StoreEntry, type StoreSpec } from './state/declared-store.js';
export { keyPart, type KeyPart, type KeySegment, type KeyValues } from './state/key-parts.js';
export type { ValueEncoding } from './state/record-schema.js';
export { PluginBoundaryError } from './host/plugin-boundary.js';
// The raw handles a declared store reads and writes through (and plugins not converted yet).
export type { ReadonlyStore, Store } from './state/prefixed-store.js';
export { jsonRecord, type RecordCodec } from './state/record-codec.js';
export type { IndexWriter } from './state/index-stage.js';
export type { IndexReader } from './store/plugin-index.js';
export type { AccountRecord, AccountsReader, AccountsWriter, TransferOptions } from './state/accounts.js';
export type { ScanOptions } from './state/overlay.js';
export { eventUcoin, type CoinHolding, type SupplyDeclaration } from './state/supply.js';
export { MAX_VALIDATORS } from './chain/validator-update-rules.js';
export type { ParamReader, ParamSpec } from './state/params.js';
// The price of state growth the kernel charges every transaction (docs/plugin-sdk.md, "State growth").
export { readStoragePrice, storageFee, storageFeeOf, STORAGE_BYTE_PRICE_PARAM, STORAGE_FREE_BYTES_PARAM, type StoragePrice } from './chain/state-growth.js';
export type { ValidatorSetReader } from './state/validator-reader.js';
export type { RecipientReader } from './context/contexts.js';
export type { Validator } from './consensus/types.js';

// 3. Events declared with their data's schema (a typed emit; the gateway's socket mapping).
export { defineEvent, TypedEvent, type EventSpec } from './host/typed-event.js';
export { EVENT_TYPE_PATTERN } from './host/plugin-events.js';
export type { BlockEvent, ChainEvent, EventPhase } from './model/types.js';

// 4. Signed operations (decisions.md §16–19).
export { COIN_UNIT, defineOperation } from './ops/operation.js';
export { operationFamily, type FamilyMember, type SharedOperationFields } from './ops/operation-family.js';
export { ACTOR_FIELDS, VALUE_FIELDS, actorFieldOf, valueFieldOf, signsForOf, signsForText } from './ops/fields.js';
export type { OperationInput, OperationResult, OperationRoute, OperationSigning, OperationSpec, SecondSignatureInput, SignedFields } from './ops/operation.js';
export { operationOf } from './model/types.js';
export { defaultMember, groupRouteOperations, operationRouteGroups, selectOperation, type OperationRouteGroup, type RouteMember } from './ops/route-dispatch.js';

// 5. Who signed, and the authorization extension point.
export type { AppliedTransaction, Signer, SignerAnswer, SignerGrant, SignerKind, SignRequest } from './context/signer.js';
export { requireMainKey } from './context/signer.js';
export { listMainKeys, readKeySet, writeKeySet, type KeySet } from './state/key-set.js';

// 6. Hooks and the contexts they receive.
export type { AdmissionContext, EndBlockResult, GenesisContext, NetworkEnv, ProposalContext, QueryContext, ReadContext, ReportedEvidence, RpcMethodHandler, TransferIntent, TransferTakeover, TxContext, TxOutcome, ValidatorUpdate, WriteContext } from './context/contexts.js';
export type { Hooks } from './host/hooks.js';
export type { BlockInfo, BlockRecord, CommittedBlock, DeclaredPayment, Evidence, Receipt, Tx } from './model/types.js';

// 7. Methods plugins offer one another (read: any plugin; write: plugins that depend on the offerer).
export { defineMethods } from './context/methods.js';
export type { PluginMethods, ReadMethod, ReadMethodCalls, ReadMethodsOf, WriteMethod, WriteMethodCalls, WriteMethodsOf } from './context/methods.js';

// 8. Read routes declared with their schemas (validated; the API reference reads them).
export { defineRoute, type DeclaredRequest, type DeclaredRoute, type RequestFor, type RouteResponses, type RouteSpec } from './host/declared-route.js';
export { pageAnswer, pageQuery, toPage, type PageLimits } from './node/page-query.js';
export { countedPage, listPage, pageFrom, pageOf, type Page } from './node/pagination.js';
export { RouteTable, type HttpMethod, type ProvenRead, type RouteOptions, type RpcHandler, type RpcRequest, type ServeOptions } from './host/route-table.js';
// Proven reads (decisions.md §84): a route's `proves` names the state keys its answer is read from.
export { accountKeysStateKey, accountStateKey, stateKey } from './node/proven-reads.js';

// 9. Errors every client sees, with the status the spec names.
export { ChainError, FailedWithGas, NodeFault, isChainError, badRequest, unauthorized, forbidden, notFound, conflict, payloadTooLarge, tooManyRequests, unavailable } from './errors.js';
export { ConfigError } from './config/env.js';

// 10. Addresses, amounts, encodings.
export { ADDRESS_MAX_LENGTH, ADDRESS_PATTERN, ADDRESS_PREFIX, addressKind, deriveAddress, isAddress, isKeyDerivedAddress, isSystemAddress, type AddressKind } from './crypto/address.js';
export { formatCoin, parseAmountText, parseCoinDecimal, wireAmount, type CoinDecimal } from './codec/amount.js';
export { parseHex, toHex, toHex0x } from './codec/hex.js';
export { FractionText, fractionText, isFractionText } from './codec/fraction.js';
// Schemas of shared wire values, and the check that answers a refusal in the schema's own words.
export { AddressString, HexBytes, TxHashString, UcoinInteger } from './tx/wire-schemas.js';
export { firstRefusal, withRefusal, type SchemaRefusal } from './codec/schema-check.js';
export { canonicalJson, stringify } from './codec/json.js';
export { jsonTextDepth, MAX_TX_NESTING } from './codec/depth.js';
export { shardOf } from './crypto/fnv.js';
export { parseShardMap } from './config/shard-map.js';
export { CROSS_SHARD_TARGET, contractAddressOn, foreignReadError, foreignRecordError, foreignSenderError, isShardOwned, ONE_SHARD, shardView, type ShardView } from './crypto/shard.js';
export { sha3Hex0x } from './crypto/hash.js';
export { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES, type SignatureProvider } from './crypto/provider.js';
export { isValidMnemonic, seedFromMnemonic } from './crypto/mnemonic.js';
export { CRYPTO_ALGORITHMS } from './crypto/algorithms.js';
export { NFT_TRANSFER_FEE } from './chain/kernel-params.js';

// 11. Lifecycle: the activation schedule of state plugins (decisions.md §26, §37).
export type { PluginScheduleChange, PluginScheduleEntry, PluginState } from './context/schedule.js';
export { changeSchedule } from './context/schedule.js';
export { readPluginSchedule } from './host/schedule-state.js';

// 12. Node-side services (state plugins' routes, the faucet's test-network routes).
// A read route's parameters as an exported TypeBox schema: the route reads its request with it,
// clients (the assistant tool server) build their inputs from the same constant.
export { CAP_KEYWORD, readParams, readQuery } from './node/request-schema.js';
export { AccountParams, pagingFields, TransactionListQuery } from './node/read-schemas.js';
export { TransactionBody } from './tx/submission.js';
export type { ChainAccess, NodeServices } from './node/services.js';
export type { StateKeysProof } from './node/proven-reads.js';
export type { ConsensusStatus, PeerView } from './replica/consensus-status.js';
export { NODE_STATEMENT_DOMAINS, type NodeKey, type NodeStatementDomain } from './node/node-key.js';
export type { ChainHistory } from './node/history.js';
export { mountRoutes, servedRoutes } from './node/mount-routes.js';
export { gatewayApiInfo, openApiDocument, type ApiDocumentInput, type ApiService } from './node/openapi.js';
export { registerApiReference } from './node/api-reference.js';
export { KERNEL_ROUTES } from './node/kernel-declarations.js';
export { TEST_NETWORK_ONLY } from './node/test-network-routes.js';
export type { NodeConfig } from './config/schema.js';

// 13. The light client (decisions.md §84–85): headers against a set's precommits, set changes under
// a trust level, state proofs against a header's root. Pure and deterministic: usable in consensus
// (IBC, cross-shard transfers) and bundled for the browser.
export * as lightClient from './light-client/index.js';
export { LightClientError, isLightClientError, type LightClientCheck } from './light-client/index.js';

// 14. The HTTP/WebSocket adapter, for service plugins that serve their own port (the gateway).
export { createHttpServer, encodedReply, flexibleRateLimiter, reply, streamReply, type HttpServer, type RateLimiter, type WsConnection, type WsHandlers } from './rpc/index.js';
