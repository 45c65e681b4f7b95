import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConfigError, parseAmountText } from '../../kernel/sdk.js';

/**
 * The one schema of the gateway's configuration. Keys are the environment variable names of the
 * interface spec (part 2, "Gateway configuration" and "Socket limits"), so every validation error
 * names the variable the operator has to fix. Values arrive as strings and are converted by the
 * declared type before validation.
 */
export const GatewayEnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'listening port (0 = any free port, logged)' }),
  GATEWAY_HOST: Type.String({ minLength: 1, default: '0.0.0.0', description: 'listen address; all interfaces by default' }),
  NODE_RPC_URL: Type.String({ pattern: '^https?://[^\\s]+$', default: 'http://127.0.0.1:9933', description: 'node RPC for reads and polling' }),
  NODE_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000, description: 'per request to a node' }),
  NODE_SOURCE_ADDRESS: Type.Optional(Type.String({ minLength: 1, description: 'local IP address the gateway connects to nodes from, so a node can exempt exactly it (CHAIN_RPC_TRUSTED_IPS); the system chooses when unset' })),
  NETWORK_ID: Type.String({ minLength: 1, default: 'chain-mainnet-1', description: 'network name in /health' }),
  POLL_NODE_INTERVAL_MS: Type.Integer({ minimum: 20, default: 2000 }),
  PROTOCOL_PARAMS_REFRESH_MS: Type.Integer({ minimum: 100, default: 60000, description: 'how often the protocol parameters are re-read from a node' }),
  GLOBAL_RL_MAX_RPS: Type.Integer({ minimum: 0, default: 200, description: 'HTTP requests per second per IP; 0 = off' }),
  AI_RL_MAX_RPM: Type.Integer({ minimum: 0, default: 10, description: 'AI endpoint requests per minute per IP; 0 = off' }),
  WS_MAX_MSG_BYTES: Type.Integer({ minimum: 256, default: 65536 }),
  WS_MAX_SUBS_PER_CLIENT: Type.Integer({ minimum: 1, default: 50 }),
  WS_RPC_MAX_RPS: Type.Integer({ minimum: 1, default: 30 }),
  WS_STALE_CHECK_MS: Type.Integer({ minimum: 100, default: 30000 }),
  CORS_ALLOWED_ORIGINS: Type.String({ default: '*' }),
  TLS_CERT: Type.Optional(Type.String({ minLength: 1 })),
  TLS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  FAUCET_COOLDOWN_SECS: Type.Integer({ minimum: 0, default: 86400, description: '0 = no cooldown' }),
  FAUCET_AMOUNT: Type.String({ minLength: 1, default: '50 COIN', description: 'amount per faucet request and the most one may ask: ucoin (50000000) or COIN (50 COIN)' }),
  KV_STORE_URL: Type.Optional(Type.String({ pattern: '^(rediss?://[^\\s]+|memory)$', description: 'redis://… for the faucet cooldowns; memory to keep them in process memory; unset: the local store on port 6379 if one answers, else memory' })),
  CHAIN_SHARD_NODES: Type.Optional(Type.String({ minLength: 1, description: '"0=http://a,1=http://b" (repeat a shard for failover)' })),
  SHARD_NODE_URLS: Type.Optional(Type.String({ minLength: 1, description: 'positional "urlShard0,urlShard1"; "a|b" lists failover nodes' })),
  CHAIN_HTTP_BACKEND: Type.Union([Type.Literal('auto'), Type.Literal('uws'), Type.Literal('node')], { default: 'auto' }),
  CACHE_MAX_ENTRIES: Type.Integer({ minimum: 10, default: 5000, description: 'bound of each response cache' }),
  SENTINEL_CHECK_INTERVAL_MS: Type.Integer({ minimum: 100, default: 30000, description: 'contract activity check: calls per .app in the blocks committed since the last check (decisions.md §53)' }),
  SENTINEL_SPIKE_LOW_THRESHOLD: Type.Integer({ minimum: 1, default: 10, description: 'calls per interval for a medium call_spike alert' }),
  SENTINEL_SPIKE_HIGH_THRESHOLD: Type.Integer({ minimum: 1, default: 50, description: 'calls per interval for a high call_spike alert' }),
  SENTINEL_LOW_SCORE_THRESHOLD: Type.Integer({ minimum: 0, maximum: 101, default: 60, description: 'a contract whose security_score is below this that starts being called raises low_score_active' }),
  ALERT_COOLDOWN_MS: Type.Integer({ minimum: 0, default: 60000, description: 'minimum gap between two alerts of one contract; a suppressed alert is not sent later' }),
  ASSISTANT_ENABLED: Type.Union([Type.Literal('0'), Type.Literal('1')], { default: '0', description: 'documentation assistant: 1 = POST /api/v1/assistant/ask answers (else 403)' }),
  AI_PROVIDER_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'a secret, never logged: with it, generate may take a `prompt` whose parameters an external model fills (never code)' })),
  AI_PROVIDER_URL: Type.String({ pattern: '^https?://[^\\s]+$', default: 'https://api.openai.com/v1/chat/completions', description: 'an OpenAI-compatible chat completions endpoint, used only with AI_PROVIDER_API_KEY' }),
  AI_PROVIDER_MODEL: Type.String({ minLength: 1, maxLength: 100, default: 'gpt-4o-mini', description: 'the model named to AI_PROVIDER_URL; generate answers generator llm:<model>' }),
  AI_PROVIDER_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 20000, description: 'how long generate waits for the external model' }),
});

/** Variables whose values are secrets: never echoed in an error, a log line or a serialised config. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set(['AI_PROVIDER_API_KEY']);

/**
 * A secret configuration value. It serialises, prints and inspects as `***`, so a config object
 * that reaches a log line (pino serialises with JSON.stringify) or an error never carries it;
 * `reveal()` is called only where it is sent (the provider request's Authorization header).
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  /** `text` with every occurrence of the secret replaced (a provider's error may echo the key). */
  redact(text: string): string {
    return text.split(this.#value).join('***');
  }
  toJSON(): string {
    return '***';
  }
  toString(): string {
    return '***';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret(***)';
  }
}

/** Contract activity alerts (decisions.md §53). */
export interface ContractAlertConfig {
  readonly checkIntervalMs: number;
  readonly spikeLowThreshold: number;
  readonly spikeHighThreshold: number;
  readonly lowScoreThreshold: number;
  readonly cooldownMs: number;
}

/** The external model that may fill generate's parameters (part 1, Gateway background behaviour 4). */
export interface AiProviderConfig {
  readonly apiKey: Secret;
  readonly url: string;
  readonly model: string;
  readonly timeoutMs: number;
}

export type GatewayEnv = Static<typeof GatewayEnvSchema>;

/** Part 2, Gateway configuration: without KV_STORE_URL, "a local key-value store on port 6379". */
export const DEFAULT_KV_STORE_URL = 'redis://127.0.0.1:6379';

/** Where the faucet cooldowns live (faucet-cooldown.ts). */
export type KvStoreChoice =
  /** KV_STORE_URL names a Redis: used, and while it is away memory stands in and /health says degraded. */
  | { readonly kind: 'configured'; readonly url: string }
  /** KV_STORE_URL unset: the local store is tried once at start; none there, memory (one log line). */
  | { readonly kind: 'default'; readonly url: string }
  /** KV_STORE_URL=memory: process memory, nothing tried. */
  | { readonly kind: 'memory' };

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  readonly nodeRpcUrl: string;
  readonly nodeTimeoutMs: number;
  /** Local address of the gateway's connections to nodes, or undefined for the system's choice. */
  readonly nodeSourceAddress: string | undefined;
  readonly networkId: string;
  readonly pollIntervalMs: number;
  readonly paramsRefreshMs: number;
  readonly globalRlMaxRps: number;
  readonly aiRlMaxRpm: number;
  readonly wsMaxMsgBytes: number;
  readonly wsMaxSubsPerClient: number;
  readonly wsRpcMaxRps: number;
  readonly wsStaleCheckMs: number;
  readonly corsAllowedOrigins: string;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly faucetCooldownSecs: number;
  /** Ucoin per faucet request, and the most a request may name (part 2, FAUCET_AMOUNT). */
  readonly faucetAmount: bigint;
  readonly kvStore: KvStoreChoice;
  readonly shardNodes: string | undefined;
  readonly shardNodeUrls: string | undefined;
  readonly httpBackend: 'auto' | 'uws' | 'node';
  readonly cacheMaxEntries: number;
  readonly contractAlerts: ContractAlertConfig;
  readonly assistantEnabled: boolean;
  /** Undefined without AI_PROVIDER_API_KEY: generate then runs the built-in generator alone. */
  readonly aiProvider: AiProviderConfig | undefined;
}

function convert(name: string, schema: TSchema, text: string): unknown {
  const kind = (schema as { type?: unknown }).type;
  if (kind === 'integer') {
    if (!/^\s*-?\d+\s*$/.test(text)) throw new ConfigError(`${name}="${text}": expected an integer`);
    return Number.parseInt(text, 10);
  }
  return text;
}

/** Reads the gateway variables from `env`; a bad value throws a ConfigError naming its variable. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const raw: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(GatewayEnvSchema.properties)) {
    const text = env[name];
    // An empty variable means "not set", as in shell scripts that export VAR= to clear it.
    if (text === undefined || text === '') continue;
    raw[name] = convert(name, schema, text);
  }
  const value = Value.Default(GatewayEnvSchema, raw);
  const first = Value.Errors(GatewayEnvSchema, value).First();
  if (first) {
    const name = first.path.replace(/^\//, '') || '(environment)';
    throw new ConfigError(`${name}=${SECRET_VARIABLES.has(name) ? '(secret, not shown)' : JSON.stringify(env[name] ?? '')}: ${first.message}`);
  }
  const e = value as GatewayEnv;
  if ((e.TLS_CERT === undefined) !== (e.TLS_KEY === undefined)) {
    throw new ConfigError(`${e.TLS_CERT === undefined ? 'TLS_CERT' : 'TLS_KEY'} is missing: TLS_CERT and TLS_KEY must be set together`);
  }
  for (const name of ['TLS_CERT', 'TLS_KEY'] as const) {
    const file = e[name];
    if (file !== undefined && !existsSync(file)) throw new ConfigError(`${name}="${file}": no such file`);
  }
  if (e.NODE_SOURCE_ADDRESS !== undefined && isIP(e.NODE_SOURCE_ADDRESS) === 0) throw new ConfigError(`NODE_SOURCE_ADDRESS=${JSON.stringify(e.NODE_SOURCE_ADDRESS)}: expected an IP address of this host`);
  const faucetAmount = parseAmountText(e.FAUCET_AMOUNT);
  // A safe integer, because a request naming no amount is forwarded with this one as a JSON number.
  if (faucetAmount === null || faucetAmount < 1n || faucetAmount > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ConfigError(`FAUCET_AMOUNT=${JSON.stringify(e.FAUCET_AMOUNT)}: expected a positive amount in ucoin (50000000) or COIN (50 COIN)`);
  }
  if (e.SENTINEL_SPIKE_HIGH_THRESHOLD < e.SENTINEL_SPIKE_LOW_THRESHOLD) {
    throw new ConfigError(`SENTINEL_SPIKE_HIGH_THRESHOLD=${e.SENTINEL_SPIKE_HIGH_THRESHOLD} is below SENTINEL_SPIKE_LOW_THRESHOLD=${e.SENTINEL_SPIKE_LOW_THRESHOLD}: a high spike must take at least as many calls as a medium one`);
  }
  return {
    port: e.PORT,
    host: e.GATEWAY_HOST,
    nodeRpcUrl: e.NODE_RPC_URL.replace(/\/+$/, ''),
    nodeTimeoutMs: e.NODE_TIMEOUT_MS,
    nodeSourceAddress: e.NODE_SOURCE_ADDRESS,
    networkId: e.NETWORK_ID,
    pollIntervalMs: e.POLL_NODE_INTERVAL_MS,
    paramsRefreshMs: e.PROTOCOL_PARAMS_REFRESH_MS,
    globalRlMaxRps: e.GLOBAL_RL_MAX_RPS,
    aiRlMaxRpm: e.AI_RL_MAX_RPM,
    wsMaxMsgBytes: e.WS_MAX_MSG_BYTES,
    wsMaxSubsPerClient: e.WS_MAX_SUBS_PER_CLIENT,
    wsRpcMaxRps: e.WS_RPC_MAX_RPS,
    wsStaleCheckMs: e.WS_STALE_CHECK_MS,
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS,
    tls: e.TLS_CERT !== undefined && e.TLS_KEY !== undefined ? { certFile: e.TLS_CERT, keyFile: e.TLS_KEY } : undefined,
    faucetCooldownSecs: e.FAUCET_COOLDOWN_SECS,
    faucetAmount,
    kvStore: e.KV_STORE_URL === undefined ? { kind: 'default', url: DEFAULT_KV_STORE_URL } : e.KV_STORE_URL === 'memory' ? { kind: 'memory' } : { kind: 'configured', url: e.KV_STORE_URL },
    shardNodes: e.CHAIN_SHARD_NODES,
    shardNodeUrls: e.SHARD_NODE_URLS,
    httpBackend: e.CHAIN_HTTP_BACKEND,
    cacheMaxEntries: e.CACHE_MAX_ENTRIES,
    contractAlerts: {
      checkIntervalMs: e.SENTINEL_CHECK_INTERVAL_MS,
      spikeLowThreshold: e.SENTINEL_SPIKE_LOW_THRESHOLD,
      spikeHighThreshold: e.SENTINEL_SPIKE_HIGH_THRESHOLD,
      lowScoreThreshold: e.SENTINEL_LOW_SCORE_THRESHOLD,
      cooldownMs: e.ALERT_COOLDOWN_MS,
    },
    assistantEnabled: e.ASSISTANT_ENABLED === '1',
    aiProvider: e.AI_PROVIDER_API_KEY === undefined ? undefined : { apiKey: new Secret(e.AI_PROVIDER_API_KEY), url: e.AI_PROVIDER_URL, model: e.AI_PROVIDER_MODEL, timeoutMs: e.AI_PROVIDER_TIMEOUT_MS },
  };
}
