import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type NodeConfig } from './schema.js';
import { ConfigError, badAddress, configFromEnv, pluginOptionsFromEnv } from './env.js';
import { HOME_VARIABLE, homeLayer, homePaths } from './home.js';
import { parsePeerEndpoint } from '../p2p/endpoint.js';
import { parseAddress } from '../p2p/tcp/wire.js';

export { ConfigError } from './env.js';

/** Objects merge key by key; arrays and scalars from a later layer replace earlier ones. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const prev = out[k];
    if (isPlainObject(prev) && isPlainObject(v)) out[k] = deepMerge(prev, v);
    else if (v !== undefined) out[k] = v;
  }
  return out;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export interface LoadOptions {
  /** configs/<network>.json to load; else `CHAIN_NETWORK`, else the home's node.json, else devnet. */
  network?: string;
  /** A node home (decisions.md §83; else `CHAIN_HOME`): its node.json is a layer between the network file and the environment. */
  home?: string;
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  flags?: Record<string, unknown>;
}

export function networkConfigPath(configDir: string, network: string): string {
  return join(configDir, `${network}.json`);
}

/**
 * Builds the effective config: defaults < configs/<network>.json < the home's node.json <
 * environment < flags, then validates it against the one schema. Any defect stops start-up with
 * a message naming the field.
 */
export function loadConfig(opts: LoadOptions): NodeConfig {
  const env = opts.env ?? process.env;
  const homeDir = opts.home ?? nonEmpty(env[HOME_VARIABLE]);
  let fromHome: Record<string, unknown> = {};
  if (homeDir !== undefined) {
    fromHome = homeLayer(homeDir);
    validateConfig(fromHome, homePaths(homeDir).nodeConfig);
  }
  const network = opts.network ?? nonEmpty(env.CHAIN_NETWORK) ?? (typeof fromHome.network === 'string' ? fromHome.network : 'devnet');
  const configDir = resolve(opts.configDir ?? 'configs');
  const file = networkConfigPath(configDir, network);
  if (!existsSync(file)) throw new ConfigError(`no config for network "${network}": ${file} does not exist`);
  let fromFile: unknown;
  try {
    fromFile = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  if (!isPlainObject(fromFile)) throw new ConfigError(`${file}: the top level must be an object`);
  // Each layer is checked as it joins, so a refusal names the layer the bad value came from.
  let merged = deepMerge({ network }, fromFile);
  validateConfig(merged, file);
  merged = deepMerge(merged, { ...fromHome, network });
  merged = deepMerge(merged, configFromEnv(env));
  // Parsed whatever the list holds, so a bad value stops start-up even where no plugin takes it.
  const plugins = pluginOptionsFromEnv(merged.plugins, env);
  if (plugins !== undefined) merged = { ...merged, plugins };
  validateConfig(merged, 'the environment: CHAIN_* variables');
  merged = deepMerge(merged, opts.flags ?? {});
  return validateConfig(merged, 'the command line');
}

export function validateConfig(raw: unknown, source = 'config'): NodeConfig {
  const withDefaults = Value.Default(ConfigSchema, Value.Clone(raw));
  const errors = [...Value.Errors(ConfigSchema, withDefaults)];
  if (errors.length > 0) {
    const lines = errors.slice(0, 8).map((e) => `  ${e.path.replace(/^\//, '').replace(/\//g, '.') || '(root)'}: ${e.message}${e.value !== undefined ? ` (got ${JSON.stringify(e.value)})` : ''}`);
    throw new ConfigError(`invalid configuration (${source}):\n${lines.join('\n')}`);
  }
  const config = withDefaults as NodeConfig;
  // A string array to the schema; whether each is an address is checked here, naming the field.
  const badTrusted = badAddress(config.rpc.trusted_ips);
  if (badTrusted !== undefined) throw new ConfigError(`invalid configuration (${source}):\n  rpc.trusted_ips: "${badTrusted}" is not an IP address or CIDR range`);
  const badSeed = config.p2p.seeds.find((e) => parsePeerEndpoint(e) === null);
  if (badSeed !== undefined) throw new ConfigError(`invalid configuration (${source}):\n  p2p.seeds: "${badSeed}" is not <host>:<port> or <node_id>@<host>:<port> (node id: 40 lowercase hex)`);
  if (config.p2p.external !== undefined && parseAddress(config.p2p.external) === null) throw new ConfigError(`invalid configuration (${source}):\n  p2p.external: "${config.p2p.external}" is not <host>:<port>`);
  const names = new Set<string>();
  for (const p of config.plugins) {
    if (names.has(p.name)) throw new ConfigError(`invalid configuration (${source}):\n  plugins: "${p.name}" is listed twice`);
    names.add(p.name);
  }
  return config;
}
