import { parseAmountText } from '../codec/amount.js';
import { parseAddressRange } from '../rpc/ip.js';

/**
 * Environment variables of the interface spec mapped onto config paths. Each entry names the
 * variable, where it lands, and how its text is read; a bad value is reported with its name.
 */
type Kind = 'int' | 'bool' | 'string' | 'list' | 'addresses' | 'amount';

interface EnvBinding {
  readonly variable: string;
  readonly path: readonly string[];
  readonly kind: Kind;
}

// `CHAIN_HOME` is not a config path: it names the node home whose node.json is a layer of its
// own, between the network file and these variables (home.ts, load.ts).
export const ENV_BINDINGS: readonly EnvBinding[] = [
  { variable: 'CHAIN_NETWORK', path: ['network'], kind: 'string' },
  { variable: 'CHAIN_ENV', path: ['env'], kind: 'string' },
  { variable: 'CHAIN_DATA_DIR', path: ['data_dir'], kind: 'string' },
  { variable: 'CHAIN_GENESIS_FILE', path: ['genesis_file'], kind: 'string' },
  { variable: 'CHAIN_KEY_FILE', path: ['key_file'], kind: 'string' },
  { variable: 'CHAIN_LOG_LEVEL', path: ['log_level'], kind: 'string' },
  { variable: 'CHAIN_RPC_HOST', path: ['rpc', 'host'], kind: 'string' },
  { variable: 'CHAIN_RPC_PORT', path: ['rpc', 'port'], kind: 'int' },
  { variable: 'CHAIN_RPC_RATE_LIMIT', path: ['rpc', 'rate_limit'], kind: 'int' },
  { variable: 'CHAIN_RPC_TRUSTED_IPS', path: ['rpc', 'trusted_ips'], kind: 'addresses' },
  { variable: 'CORS_ALLOWED_ORIGINS', path: ['rpc', 'cors_allowed_origins'], kind: 'string' },
  { variable: 'CHAIN_HTTP_BACKEND', path: ['rpc', 'http_backend'], kind: 'string' },
  { variable: 'CHAIN_BLOCK_MS', path: ['consensus', 'block_ms'], kind: 'int' },
  { variable: 'CHAIN_EMPTY_BLOCK_MS', path: ['consensus', 'empty_block_ms'], kind: 'int' },
  { variable: 'CHAIN_MIN_VALIDATORS', path: ['consensus', 'min_validators'], kind: 'int' },
  { variable: 'CHAIN_SYNC_HISTORY_BLOCKS', path: ['consensus', 'sync_history_blocks'], kind: 'int' },
  { variable: 'CHAIN_CHECKPOINT_INTERVAL', path: ['consensus', 'checkpoint_interval'], kind: 'int' },
  { variable: 'CHAIN_SNAPSHOT_URL', path: ['consensus', 'snapshot_url'], kind: 'string' },
  { variable: 'CHAIN_REQUIRE_TX_V3', path: ['tx', 'require_v3'], kind: 'bool' },
  { variable: 'CHAIN_ALLOW_SERVER_DERIVE', path: ['wallet', 'allow_server_derive'], kind: 'bool' },
  { variable: 'CHAIN_P2P_HOST', path: ['p2p', 'host'], kind: 'string' },
  { variable: 'CHAIN_P2P_PORT', path: ['p2p', 'port'], kind: 'int' },
  { variable: 'CHAIN_P2P_SEEDS', path: ['p2p', 'seeds'], kind: 'list' },
  { variable: 'CHAIN_P2P_EXTERNAL', path: ['p2p', 'external'], kind: 'string' },
  { variable: 'CHAIN_GENESIS_HASH', path: ['genesis_hash'], kind: 'string' },
  { variable: 'CHAIN_SHARDS', path: ['sharding', 'shards'], kind: 'int' },
  { variable: 'CHAIN_SHARD_ID', path: ['sharding', 'shard_id'], kind: 'int' },
  { variable: 'CHAIN_CRYPTO_PROVIDER', path: ['crypto', 'provider'], kind: 'string' },
  { variable: 'CHAIN_VERIFY_WORKERS', path: ['crypto', 'verify_workers'], kind: 'int' },
  { variable: 'CHAIN_UNBONDING_BLOCKS', path: ['param_overrides', 'unbonding_blocks'], kind: 'amount' },
  { variable: 'CHAIN_REWARD_INTERVAL_BLOCKS', path: ['param_overrides', 'reward_interval_blocks'], kind: 'amount' },
  { variable: 'CHAIN_JAIL_BLOCKS', path: ['param_overrides', 'jail_blocks'], kind: 'amount' },
  { variable: 'CHAIN_SLASH_FRACTION_DOUBLE_SIGN_BPS', path: ['param_overrides', 'slash_fraction_double_sign_bps'], kind: 'amount' },
  { variable: 'CHAIN_SLASH_REWARD_FRACTION_BPS', path: ['param_overrides', 'slash_reward_fraction_bps'], kind: 'amount' },
  { variable: 'CHAIN_SLASH_EVIDENCE_WINDOW', path: ['param_overrides', 'slash_evidence_window'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_ENABLED', path: ['param_overrides', 'sentinel_enabled'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_REJECT_THRESHOLD', path: ['param_overrides', 'sentinel_reject_threshold'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_POLICY_ENABLED', path: ['param_overrides', 'sentinel_policy_enabled'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_HOLD_THRESHOLD', path: ['param_overrides', 'sentinel_hold_threshold'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_STEPUP_THRESHOLD', path: ['param_overrides', 'sentinel_stepup_threshold'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_HOLD_BLOCKS', path: ['param_overrides', 'sentinel_hold_blocks'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_CONFIRM_EXPIRY_BLOCKS', path: ['param_overrides', 'sentinel_confirm_expiry_blocks'], kind: 'amount' },
  { variable: 'CHAIN_SENTINEL_AGENT_CONFIRM_THRESHOLD', path: ['param_overrides', 'sentinel_agent_confirm_threshold'], kind: 'amount' },
  { variable: 'CHAIN_TRUST_ACTIVATION_BLOCKS', path: ['param_overrides', 'trust_activation_blocks'], kind: 'amount' },
  // decisions.md §63: the IBC parameters, seeded at genesis (the ibc plugin declares them).
  { variable: 'CHAIN_IBC_HEADER_INTERVAL', path: ['param_overrides', 'ibc_header_interval'], kind: 'amount' },
  { variable: 'CHAIN_IBC_TIMEOUT_BLOCKS', path: ['param_overrides', 'ibc_timeout_blocks'], kind: 'amount' },
  { variable: 'CHAIN_IBC_MAX_PACKET_UNRO', path: ['param_overrides', 'ibc_max_packet'], kind: 'amount' },
  { variable: 'CHAIN_IBC_MAX_CHANNEL_ESCROW_UNRO', path: ['param_overrides', 'ibc_max_channel_escrow'], kind: 'amount' },
  // decisions.md §74: the cross-shard deadline, seeded at genesis (the xshard plugin declares it).
  { variable: 'RELAY_TIMEOUT_BLOCKS', path: ['param_overrides', 'relay_timeout_blocks'], kind: 'amount' },
];

/**
 * Variables that set an option of a plugin: plugins are an ordered list in the config, so these
 * cannot be config paths. They apply to the plugin's entry in the network's list; a network that
 * does not list the plugin ignores them (mainnet has no faucet), but a bad value always stops
 * start-up.
 */
interface PluginOptionBinding {
  readonly variable: string;
  readonly plugin: string;
  readonly option: string;
  /** How the text is read: a ucoin amount (the default), text as it is, or a 1/0/true/false switch. */
  readonly kind?: 'ucoin' | 'text' | 'bool';
}

export const PLUGIN_OPTION_BINDINGS: readonly PluginOptionBinding[] = [
  // Part 2, "Gateway configuration": the amount per faucet request. The gateway reads the same
  // variable as its cap and default (plugins/gateway/config.ts); a node's faucet uses it as the
  // amount of a request that names none.
  { variable: 'FAUCET_AMOUNT', plugin: 'faucet', option: 'default_amount' },
  // decisions.md §63 and part 2 "IBC configuration": seeded into the ibc plugin's genesis state or checked at start-up.
  { variable: 'CHAIN_IBC_OPERATOR_PUBKEYS', plugin: 'ibc', option: 'operator_pubkeys', kind: 'text' },
  { variable: 'CHAIN_IBC_TRUSTED_PUBKEYS', plugin: 'ibc', option: 'trusted_pubkeys', kind: 'text' },
  { variable: 'CHAIN_IBC_NATIVE_DENOM', plugin: 'ibc', option: 'native_denom', kind: 'text' },
  { variable: 'CHAIN_IBC_REQUIRE_HEADER', plugin: 'ibc', option: 'require_header', kind: 'bool' },
  { variable: 'CHAIN_IBC_REQUIRE_PACKET_COMMITMENT', plugin: 'ibc', option: 'require_packet_commitment', kind: 'bool' },
];

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function parse(binding: EnvBinding, text: string): unknown {
  switch (binding.kind) {
    case 'int': {
      if (!/^-?\d+$/.test(text.trim())) throw new ConfigError(`${binding.variable}="${text}": expected an integer`);
      return Number.parseInt(text, 10);
    }
    case 'bool': {
      const t = text.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(t)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(t)) return false;
      throw new ConfigError(`${binding.variable}="${text}": expected 1/0/true/false`);
    }
    case 'list':
      return listOf(text);
    case 'addresses': {
      const entries = listOf(text);
      const bad = badAddress(entries);
      if (bad !== undefined) throw new ConfigError(`${binding.variable}="${text}": "${bad}" is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/24, fd00::/8)`);
      return entries;
    }
    case 'amount':
      if (!/^(0|[1-9]\d*)$/.test(text.trim())) throw new ConfigError(`${binding.variable}="${text}": expected a non-negative integer`);
      return text.trim();
    case 'string':
      return text;
  }
}

function listOf(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** The first entry that is not an IP or CIDR range, if any. */
export function badAddress(entries: readonly string[]): string | undefined {
  return entries.find((e) => parseAddressRange(e) === undefined);
}

/** The config fragment the environment contributes. */
export function configFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const b of ENV_BINDINGS) {
    const raw = env[b.variable];
    if (raw === undefined) continue;
    setPath(out, b.path, parse(b, raw));
  }
  return out;
}

/** A positive amount of ucoin, as the plugin options hold it (a JSON integer). */
function parseUcoin(variable: string, text: string): number {
  const v = parseAmountText(text);
  if (v === null || v < 1n || v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ConfigError(`${variable}="${text}": expected a positive amount in ucoin (e.g. 50000000) or in COIN (e.g. "50 COIN")`);
  }
  return Number(v);
}

function optionValue(b: PluginOptionBinding, raw: string): unknown {
  switch (b.kind ?? 'ucoin') {
    case 'ucoin':
      return parseUcoin(b.variable, raw);
    case 'text':
      return raw.trim();
    case 'bool':
      return parse({ variable: b.variable, path: [], kind: 'bool' }, raw);
  }
}

/**
 * What the environment's plugin variables do to `plugins` (the network's list): `plugins` with
 * the options they set on the plugins it lists, and `set`, the same list holding at each entry
 * they touched `{ options }` with only those options (elsewhere nothing), so that a refused value
 * can be blamed on the environment. Undefined when no plugin variable is set or the list is not
 * an array; variables for plugins the list does not hold leave `set` all empty.
 */
export function pluginOptionsFromEnv(plugins: unknown, env: NodeJS.ProcessEnv): { readonly plugins: unknown[]; readonly set: unknown[] } | undefined {
  const values = PLUGIN_OPTION_BINDINGS.flatMap((b) => {
    const raw = env[b.variable];
    return raw === undefined ? [] : [{ ...b, value: optionValue(b, raw) }];
  });
  if (values.length === 0 || !Array.isArray(plugins)) return undefined;
  const set: unknown[] = [];
  const changed = plugins.map((entry: unknown) => {
    const mine = isPlainObject(entry) ? values.filter((v) => v.plugin === entry.name) : [];
    if (!isPlainObject(entry) || mine.length === 0) {
      set.push(undefined);
      return entry;
    }
    const options = isPlainObject(entry.options) ? entry.options : {};
    const fromEnv = Object.fromEntries(mine.map((v) => [v.option, v.value]));
    set.push({ options: fromEnv });
    return { ...entry, options: { ...options, ...fromEnv } };
  });
  return { plugins: changed, set };
}

/** A JSON object: not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const seg of path.slice(0, -1)) {
    const next = node[seg];
    if (!isPlainObject(next)) node[seg] = {};
    node = node[seg] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}
