import { Type, type TSchema } from '@sinclair/typebox';
import { AddressString, defineRoute } from '../../kernel/sdk.js';
import { AiStatusFigures } from './ai-declarations.js';
import { SHARDS_PATH } from './shards.js';
import { ShardQuery } from './shard-query.js';

/**
 * The gateway's own routes, declared (decisions.md §86–88, part 1's gateway rows): what its API
 * reference shows and CHAIN_VALIDATE_RESPONSES holds its answers to. The node reads it forwards
 * are served under the kernel's declarations (proxy-routes.ts).
 */

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

export const GatewayHealth = Type.Object({
  status: Type.String({ description: 'the node\'s status (ok, syncing), degraded, or node_unreachable' }),
  network: Type.String(),
  height: Count(),
  peers: Count(),
  round: Count(),
  mempool: Count(),
  node_reachable: Type.Boolean(),
  node_status: Type.String(),
  last_poll_at: Count('when the gateway last polled the node (ms since 1970)'),
  node_error: Type.Optional(Type.String()),
  faucet_cooldown_store: Type.String(),
  warning: Type.Optional(Type.String()),
  ws_clients: Count(),
  shard: Type.Optional(Count('with ?shard=: the shard whose node was asked (decisions.md §73)')),
  n_shards: Type.Optional(Count('with ?shard=: the shards of the network')),
});

export const NetworkStatus = Type.Object({
  network: Type.String(),
  chain_id: Nullable(Type.String()),
  genesis_hash: Nullable(Type.String()),
  height: Count(),
  validator_count: Count(),
  shard_count: Type.Integer({ minimum: 1 }),
  total_txs: Count(),
  block_time_ms: Nullable(Count('median gap between consecutive block timestamps over the last 100 blocks')),
  tps: Type.Number({ minimum: 0, description: 'transactions of the last 10 blocks per second of their time' }),
  tps_peak: Type.Number({ minimum: 0, description: 'the highest 10-block figure over the last 1 000 blocks' }),
  crypto: Type.Array(Type.String()),
  ai_models: Nullable(Type.Object({ active: Count(), pending: Count() })),
  wasm_version: Nullable(Type.String({ description: 'version of the browser crypto module this gateway serves (decisions.md §86); null when it is not built' })),
});

export const CryptoModuleManifest = Type.Object({
  name: Type.Literal('chain-crypto'),
  version: Type.String(),
  format: Type.Literal('esm'),
  url: Type.String(),
  size: Type.Integer({ minimum: 1 }),
  sha384: Type.String({ pattern: '^[0-9a-f]{96}$' }),
  integrity: Type.String(),
  algorithm: Type.String(),
  hash: Type.String(),
  mnemonic: Type.String(),
  exports: Type.Array(Type.String()),
  built_from: Type.Object({ package: Type.String(), version: Type.String(), bundler: Type.String(), dependencies: Type.Record(Type.String(), Type.String()) }),
});

export const AiStatus = Type.Object({
  models: Type.Array(Type.Object({ id: Type.Unknown(), name: Type.Unknown(), version: Type.Unknown(), weights_hash: Type.Unknown(), status: Type.Unknown() })),
  active: Count(),
  pending: Count(),
  sentinel: Type.Object({ enabled: Type.Unknown(), policy_enabled: Type.Unknown(), reject_threshold: Type.Unknown() }),
  decisions: Nullable(Count()),
  export_token_required: Type.Boolean(),
  ...AiStatusFigures,
});

/**
 * decisions.md §77: one entry per shard, as that shard's nodes report it, or `reachable: false`
 * and why; without a shard map, the node's own answer as it is (with its `shard_id`).
 */
export const GatewayShards = Type.Object({
  n_shards: Type.Integer({ minimum: 1 }),
  shard_id: Type.Optional(Count('the shard of the one node asked, on a gateway without a shard map')),
  shards: Type.Array(
    Type.Object({
      shard: Count(),
      reachable: Type.Optional(Type.Boolean({ description: 'false: none of the shard\'s nodes answered (a gateway with a shard map)' })),
      error: Type.Optional(Type.String({ description: 'why the shard is not listed with its figures' })),
      height: Type.Optional(Count()),
      state_root: Type.Optional(Type.String()),
      block_hash: Type.Optional(Type.String()),
      validators: Type.Optional(Type.Array(Type.Object({ address: Type.String(), public_key: Type.String(), power: Count() }), { description: 'the active set, in §84\'s form' })),
      validators_hash: Type.Optional(Type.String()),
      cross_shard: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'the shard\'s locked, sent, refunded and received totals since genesis, each with *_human (decisions.md §76)' })),
    }),
  ),
});

/**
 * Part 1, Contracts: each field read from the contract by a dry run of the function of its name;
 * null when the contract does not answer it as a token does.
 */
export const TokenInfo = Type.Object({
  address: Type.String(),
  name: Nullable(Type.String()),
  symbol: Nullable(Type.String()),
  decimals: Nullable(Type.Integer({ minimum: 0, maximum: 255 })),
  total_supply: Nullable(Type.String({ pattern: '^[0-9]+$', description: 'in the token\'s smallest unit, as decimal text (it may exceed 2^53)' })),
});

const NOT_BUILT = 'the browser crypto module is not built on this gateway';

export const GATEWAY_ROUTES = {
  health: defineRoute({ method: 'GET', path: '/health', summary: 'gateway health: its node\'s figures as last polled, or with ?shard= a node of that shard asked now; 503 while no node answers', query: Type.Object({ shard: ShardQuery }), responses: { 200: GatewayHealth, 503: 'no node answers (the body is the same health record)' } }),
  metrics: defineRoute({ method: 'GET', path: '/metrics', summary: 'Prometheus metrics of the gateway', produces: 'text/plain', responses: { 200: Type.String() } }),
  latestBlock: defineRoute({ method: 'GET', path: '/api/v1/blocks/latest', summary: 'the newest committed block', responses: { 200: Type.Object({ block: Type.Record(Type.String(), Type.Unknown()) }), 404: 'no block has been committed yet' } }),
  networkStatus: defineRoute({ method: 'GET', path: '/api/v1/network/status', summary: 'the network as measured from its committed blocks (decisions.md §88)', responses: { 200: NetworkStatus } }),
  aiStatus: defineRoute({ method: 'GET', path: '/api/v1/ai/status', summary: 'the AI model registry, the sentinel\'s switches, the decision log\'s size and the gateway\'s analyzer, generator, assistant, contract-alert and rate-limit figures (decisions.md §52)', responses: { 200: AiStatus } }),
  wasmVersion: defineRoute({ method: 'GET', path: '/api/v1/wasm/version', summary: 'the manifest of the browser crypto module (decisions.md §86)', responses: { 200: CryptoModuleManifest, 503: NOT_BUILT } }),
  wasmModule: defineRoute({
    method: 'GET',
    path: '/api/v1/wasm/:file',
    summary: 'the browser crypto module itself (immutable; the name carries the version)',
    params: Type.Object({ file: Type.String({ description: 'chain-crypto-<version>.mjs, as the manifest\'s url says' }) }),
    produces: 'text/javascript',
    responses: { 200: Type.String(), 404: 'not the module this gateway serves', 503: NOT_BUILT },
  }),
  shards: defineRoute({ method: 'GET', path: SHARDS_PATH, summary: 'per-shard heights and roots, each from that shard\'s nodes (decisions.md §77)', responses: { 200: GatewayShards } }),
  tokenInfo: defineRoute({
    method: 'GET',
    path: '/api/v1/contracts/:address/token-info',
    summary: 'a token contract\'s name, symbol, decimals and supply, read by dry runs on a node',
    // Checked here: text that is no address went on to the node as a longer URL and came back 414 (the route fuzzer, issue 39).
    params: Type.Object({ address: AddressString }),
    responses: { 200: TokenInfo, 404: 'no contract at that address' },
  }),
} as const;
