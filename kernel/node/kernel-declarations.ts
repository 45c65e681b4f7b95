import { Type } from '@sinclair/typebox';
import { withRefusal } from '../codec/schema-check.js';
import { TransactionBody } from '../tx/submission.js';
import { defineRoute } from '../host/declared-route.js';
import { accountStateKey } from './proven-reads.js';
import { pageQuery } from './page-query.js';
import { pluginRoute, pluginsRoute } from './plugin-routes.js';
import { AccountParams, TransactionListQuery } from './read-schemas.js';
import { TxHashString } from '../tx/wire-schemas.js';
import {
  AccountTxList,
  AccountView,
  BlockEventList,
  BlockList,
  BlockTxList,
  BlockView,
  CheckpointList,
  CommitView,
  GasEstimateView,
  GenesisView,
  GovernanceParamsView,
  HealthView,
  IbcHeaderView,
  IbcTestVectorView,
  PeersView,
  ShardsView,
  SnapshotDocument,
  StateProofView,
  StateRootView,
  StatusView,
  TotalsView,
  TxAccepted,
  TxDetail,
  TxInclusionProof,
  TxList,
  ValidatorList,
} from './kernel-answers.js';

/**
 * The kernel's own routes, declared (kernel-routes.ts, snapshot-routes.ts serve them): what the
 * API reference shows, what CHAIN_VALIDATE_RESPONSES holds their answers to, and what the
 * gateway's forwarded twins reuse (plugins/gateway/proxy-routes.ts).
 */

/** A committed height in the path; the refusal texts are the ones clients have always read. */
export const HeightParams = Type.Object({
  height: withRefusal(Type.String({ pattern: '^[0-9]{1,15}$', description: 'a block height (from 1)' }), (v) => `block height must be a positive integer, got "${String(v)}"`),
});

/** A block by height or, for explorers and search boxes, by its hash. */
export const BlockRefParams = Type.Object({
  height: withRefusal(Type.String({ pattern: '^([0-9]{1,15}|0x[0-9a-fA-F]{64})$', description: 'a block height (from 1), or a block hash (0x and 64 hex)' }), (v) =>
    String(v).startsWith('0x') ? `a block is named by its height or its hash (0x followed by 64 hex characters), got "${String(v)}"` : `block height must be a positive integer, got "${String(v)}"`,
  ),
});

export const TxHashParams = Type.Object({ hash: TxHashString });

const BLOCK_NOT_FOUND = 'no committed block at that height (or of that hash)';

export const KERNEL_ROUTES = {
  health: defineRoute({ method: 'GET', path: '/health', summary: 'node health: height, round, mempool, peers, throughput, BFT readiness', responses: { 200: HealthView } }),
  statusRoot: defineRoute({ method: 'GET', path: '/status', summary: 'node status: chain, genesis hash, node identity, head, validator set (decisions.md §83)', responses: { 200: StatusView } }),
  status: defineRoute({ method: 'GET', path: '/api/v1/status', summary: 'node status: chain, genesis hash, node identity, head, validator set (decisions.md §83)', responses: { 200: StatusView } }),
  genesis: defineRoute({ method: 'GET', path: '/api/v1/genesis', summary: 'the genesis document as loaded; its hash is genesis_hash of /status (decisions.md §83)', responses: { 200: GenesisView } }),
  validators: defineRoute({ method: 'GET', path: '/api/v1/validators', summary: 'the active validator set with its activity figures (decisions.md §34)', query: pageQuery({ default: 100, cap: 100 }), responses: { 200: ValidatorList } }),
  metrics: defineRoute({ method: 'GET', path: '/metrics', summary: 'Prometheus metrics (text exposition format)', produces: 'text/plain', responses: { 200: Type.String() } }),
  peers: defineRoute({ method: 'GET', path: '/peers', summary: 'the P2P peers this node is connected to', responses: { 200: PeersView } }),
  blocks: defineRoute({ method: 'GET', path: '/api/v1/blocks', summary: 'committed blocks, newest first', query: pageQuery({ default: 20, cap: 100 }), responses: { 200: BlockList } }),
  block: defineRoute({ method: 'GET', path: '/api/v1/blocks/:height', summary: 'a committed block by height or hash', params: BlockRefParams, responses: { 200: BlockView, 404: BLOCK_NOT_FOUND } }),
  blockCommit: defineRoute({
    method: 'GET',
    path: '/api/v1/blocks/:height/commit',
    summary: 'a committed block\'s header, commit certificate and validator set, for light clients (decisions.md §84)',
    params: HeightParams,
    responses: { 200: CommitView, 404: 'above the tip, or a certificate or set this node no longer holds' },
  }),
  blockTransactions: defineRoute({ method: 'GET', path: '/api/v1/blocks/:height/transactions', summary: 'the transactions of a committed block', params: HeightParams, query: pageQuery({ default: 200, cap: 200 }), responses: { 200: BlockTxList, 404: BLOCK_NOT_FOUND } }),
  blockEvents: defineRoute({ method: 'GET', path: '/api/v1/blocks/:height/events', summary: 'the events of a committed block', params: HeightParams, responses: { 200: BlockEventList, 404: BLOCK_NOT_FOUND } }),
  submit: defineRoute({
    method: 'POST',
    path: '/api/v1/transactions',
    summary: 'submit a signed transfer (or a contract call or deploy as a transaction)',
    body: TransactionBody,
    bodyCheck: 'handler',
    responses: { 200: TxAccepted, 401: 'no signature or key, a signature that does not verify, or a key not bound to from', 403: 'refused by the network\'s rules for the sender (a held or sentinel-refused transfer)', 409: 'the nonce is taken by a pending transaction', 503: 'the mempool is full (retry)' },
    extensions: {
      'x-signs-for': '{to}',
      'x-signed-layout': 'ch-tx-v4|<chain_id>|tx|<from>|<to>|<value>|<nonce>|<gas_price>|<gas_limit>|<0x SHA3-256 of data, empty when absent> (ch-tx-v2 <from>|<to>|<value>|<nonce> and v3 accepted on test networks: decisions.md §6, §7, §94)',
    },
  }),
  transactions: defineRoute({ method: 'GET', path: '/api/v1/transactions', summary: 'transactions, newest first, filtered by address, hash or type', query: TransactionListQuery, responses: { 200: TxList } }),
  transaction: defineRoute({ method: 'GET', path: '/api/v1/transactions/:hash', summary: 'a transaction (pending or committed), its events and return data', params: TxHashParams, responses: { 200: TxDetail, 404: 'no transaction of that hash' } }),
  txProof: defineRoute({ method: 'GET', path: '/api/v1/tx/:hash/proof', summary: 'the Merkle proof of a committed transaction against its block\'s tx_root', params: TxHashParams, responses: { 200: TxInclusionProof, 404: 'not in a committed block' } }),
  account: defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:address',
    summary: 'an account; with prove=true, balance, nonce and tx_count proven against a certified header (decisions.md §84)',
    params: AccountParams,
    responses: { 200: AccountView },
    // A name answers its owner's account (decisions.md §39): the record proven is the one answered.
    proves: (_req, answer) => [accountStateKey(String(answer.address))],
  }),
  accountTransactions: defineRoute({ method: 'GET', path: '/api/v1/accounts/:address/transactions', summary: 'an account\'s transactions, newest first', params: AccountParams, query: pageQuery({ default: 50, cap: 200 }), responses: { 200: AccountTxList } }),
  accountTotals: defineRoute({ method: 'GET', path: '/api/v1/accounts/:address/totals', summary: 'what an account sent, received and paid in fees, in total', params: AccountParams, responses: { 200: TotalsView } }),
  gasEstimate: defineRoute({ method: 'GET', path: '/api/v1/gas/estimate', summary: 'the base fee, gas of a transfer and a contract call, and each operation\'s gas (decisions.md §18)', responses: { 200: GasEstimateView } }),
  stateRoot: defineRoute({ method: 'GET', path: '/api/v1/state/root', summary: 'the state root of the head', responses: { 200: StateRootView } }),
  shards: defineRoute({ method: 'GET', path: '/api/v1/shards', summary: 'the shard this node serves: its height and root', responses: { 200: ShardsView } }),
  stateProof: defineRoute({
    method: 'GET',
    path: '/api/v1/state/proof',
    summary: 'the Merkle proof of one state key against block height\'s state root (the head\'s without height; decisions.md §66)',
    query: Type.Object({
      key: Type.String({ minLength: 1, maxLength: 1024, description: 'a full state key, e.g. acct/chain:0123456789abcde.human' }),
      height: Type.Optional(
        withRefusal(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'a committed block height (from 1); the head when omitted' }), (v) => `height must be a positive integer, got "${Array.isArray(v) ? v.join(',') : String(v)}"`),
      ),
    }),
    responses: { 200: StateProofView, 400: 'no key, or a height that is not a positive integer', 404: 'a height above the head, or one this node holds no block of (started from a later snapshot)' },
  }),
  governanceParams: defineRoute({ method: 'GET', path: '/api/v1/governance/params', summary: 'every governed parameter: value, default, bounds, owner', responses: { 200: GovernanceParamsView } }),
  snapshot: defineRoute({
    method: 'GET',
    path: '/api/v1/state/snapshot',
    summary: 'a state snapshot of a certified height, for a node that starts from one (streamed JSON)',
    produces: 'application/json',
    responses: { 200: SnapshotDocument, 404: 'no block committed yet', 503: 'the snapshot cannot be certified yet, or a follower trusting genesis would refuse it' },
  }),
  checkpoints: defineRoute({ method: 'GET', path: '/api/v1/checkpoints', summary: 'signed checkpoints (height, block hash, state root), newest first', query: pageQuery({ default: 20, cap: 100 }), responses: { 200: CheckpointList } }),
  ibcHeaderLatest: defineRoute({ method: 'GET', path: '/api/v1/ibc/header/latest', summary: 'the newest light-client commit header more than 2/3 of its set\'s power signed (decisions.md §64)', responses: { 200: IbcHeaderView, 404: 'no header served yet' } }),
  ibcHeader: defineRoute({
    method: 'GET',
    path: '/api/v1/ibc/header/:height',
    summary: 'the light-client commit header of a height, once more than 2/3 of its set\'s power signed it (decisions.md §64)',
    params: HeightParams,
    responses: { 200: IbcHeaderView, 400: 'a height that is not a positive integer', 404: 'no header at that height (not a header height, not signed enough yet, or no longer kept)' },
  }),
  ibcTestVector: defineRoute({ method: 'GET', path: '/api/v1/ibc/pq/test-vector', summary: 'a fixed ch-pq-lc-v1 header, key and ML-DSA-65 signature, the same on every node (decisions.md §70)', responses: { 200: IbcTestVectorView } }),
  // Declared beside the host they read (plugin-routes.ts); listed here so the gateway forwards them declared too.
  plugins: pluginsRoute,
  plugin: pluginRoute,
} as const;
