import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_MEMPOOL_MAX_BYTES } from '../mempool/mempool.js';

/**
 * The one schema of a node's configuration. Layering (config/load.ts): these defaults <
 * configs/<network>.json < environment variables < command-line flags. `chain config-schema`
 * prints it as JSON Schema for editors.
 */
export const PluginEntrySchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }),
    enabled: Type.Boolean({ default: true }),
    /** A state plugin's taps run from this height on, on every validator alike. */
    activation_height: Type.Integer({ minimum: 0, default: 0 }),
    /** A state plugin's taps stop from this height on (its state stays readable). */
    retire_height: Type.Optional(Type.Integer({ minimum: 1 })),
    options: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
  },
  { additionalProperties: false },
);

export const ConfigSchema = Type.Object(
  {
    network: Type.String({ minLength: 1, default: 'devnet' }),
    /** The operator's label for this node (decisions.md §82, `chain init --moniker`): shown in `/status`. */
    moniker: Type.Optional(Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$', description: 'label: 1 to 32 of a-z, 0-9 and -, not starting or ending with -' })),
    /** The genesis this node must run (decisions.md §83): start-up stops when the genesis file or the data folder hashes otherwise. */
    genesis_hash: Type.Optional(Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'pinned genesis hash (0x SHA3-256 of the canonical genesis JSON)' })),
    env: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')], { default: 'mainnet' }),
    data_dir: Type.String({ minLength: 1, default: './data/node' }),
    genesis_file: Type.Optional(Type.String({ minLength: 1 })),
    key_file: Type.Optional(Type.String({ minLength: 1 })),
    log_level: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info' }),
    rpc: Type.Object(
      {
        host: Type.String({ default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 9933 }),
        rate_limit: Type.Integer({ minimum: 0, default: 100, description: 'requests per second per IP; 0 = off' }),
        trusted_ips: Type.Array(Type.String(), {
          default: [],
          description: 'IPs and CIDR ranges (e.g. the gateway: 10.0.0.5, 10.0.0.0/24, fd00::/8) whose requests rate_limit does not count; they limit their own clients',
        }),
        cors_allowed_origins: Type.String({ default: '*' }),
        http_backend: Type.Union([Type.Literal('auto'), Type.Literal('uws'), Type.Literal('node')], { default: 'auto' }),
        max_body_bytes: Type.Integer({ minimum: 1024, default: 1048576 }),
      },
      { additionalProperties: false, default: {} },
    ),
    consensus: Type.Object(
      {
        block_ms: Type.Integer({ minimum: 1, default: 200 }),
        empty_block_ms: Type.Integer({ minimum: 1, default: 2000 }),
        min_validators: Type.Integer({ minimum: 1, default: 7 }),
        sync_history_blocks: Type.Integer({ minimum: 1, default: 10000 }),
        checkpoint_interval: Type.Integer({ minimum: 1, default: 100, description: 'blocks between signed checkpoints' }),
        timestamp_precision_ms: Type.Integer({ minimum: 0, default: 500, description: "how far ahead of this validator's clock a proposed block's time may be before it prevotes nil (proposer-based timestamps); keep validators' clocks closer than this; 0 accepts only block times at or before arrival, which suits validators sharing one clock" }),
        /** A fresh node too far behind its peers starts from this node's state snapshot, verified by the certificate of the block after it. */
        snapshot_url: Type.Optional(Type.String({ minLength: 1 })),
      },
      { additionalProperties: false, default: {} },
    ),
    tx: Type.Object(
      {
        require_v3: Type.Boolean({ default: false }),
        mempool_max_txs: Type.Integer({ minimum: 1, default: 20000 }),
        mempool_max_per_sender: Type.Integer({ minimum: 1, default: 256 }),
        mempool_max_bytes: Type.Integer({ minimum: 1_048_576, default: DEFAULT_MEMPOOL_MAX_BYTES, description: "bytes of pending transactions' texts the mempool holds before admission answers 503 (beside mempool_max_txs)" }),
      },
      { additionalProperties: false, default: {} },
    ),
    wallet: Type.Object({ allow_server_derive: Type.Boolean({ default: false }) }, { additionalProperties: false, default: {} }),
    p2p: Type.Object(
      {
        host: Type.String({ default: '127.0.0.1', description: 'listen address' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 26656 }),
        /** What peers are told to dial (decisions.md §83); host:port of the listener when absent. */
        external: Type.Optional(Type.String({ minLength: 3, description: 'address advertised to peers, <host>:<port>' })),
        seeds: Type.Array(Type.String(), { default: [], description: '<host>:<port> or <node_id>@<host>:<port>; with an id, a peer whose key has another id is refused' }),
        max_peers: Type.Integer({ minimum: 1, default: 32 }),
      },
      { additionalProperties: false, default: {} },
    ),
    sharding: Type.Object(
      {
        shards: Type.Integer({ minimum: 1, default: 1 }),
        shard_id: Type.Optional(Type.Integer({ minimum: 0 })),
      },
      { additionalProperties: false, default: {} },
    ),
    crypto: Type.Object(
      {
        provider: Type.Union([Type.Literal('auto'), Type.Literal('noble'), Type.Literal('pqclean'), Type.Literal('node')], { default: 'auto' }),
        /** Signature-verification worker threads; 0 verifies on the main thread. Default: the core count. */
        verify_workers: Type.Optional(Type.Integer({ minimum: 0, maximum: 256 })),
      },
      { additionalProperties: false, default: {} },
    ),
    /** Parameter values written at genesis instead of the declared defaults (e.g. CHAIN_JAIL_BLOCKS). */
    param_overrides: Type.Record(Type.String(), Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$' }), { default: {} }),
    plugins: Type.Array(PluginEntrySchema, { default: [] }),
  },
  { additionalProperties: false },
);

export type NodeConfig = Static<typeof ConfigSchema>;
export type PluginEntry = Static<typeof PluginEntrySchema>;
