import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type NodeConfig } from './schema.js';
import { ConfigError, badAddress, configFromEnv, isPlainObject, pluginOptionsFromEnv } from './env.js';
import { HOME_VARIABLE, homeLayer, homePaths } from './home.js';
import { defaultConfigDir } from './config-dir.js';
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
  const fromHome: Record<string, unknown> = homeDir === undefined ? {} : homeLayer(homeDir);
  const network = opts.network ?? nonEmpty(env.CHAIN_NETWORK) ?? (typeof fromHome.network === 'string' ? fromHome.network : 'devnet');
  const configDir = resolve(opts.configDir ?? defaultConfigDir());
  const file = networkConfigPath(configDir, network);
  if (!existsSync(file)) throw new ConfigError(`no config for network "${network}": ${file} does not exist`);
  let fromFile: unknown;
  try {
    fromFile = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  if (!isPlainObject(fromFile)) throw new ConfigError(`${file}: the top level must be an object`);
  const layers: ConfigLayer[] = [{ source: file, value: fromFile }];
  if (homeDir !== undefined) layers.push({ source: homePaths(homeDir).nodeConfig, value: fromHome });
  let merged = deepMerge(deepMerge({ network }, fromFile), { ...fromHome, network });
  const fromEnv = configFromEnv(env);
  merged = deepMerge(merged, fromEnv);
  // Parsed whatever the list holds, so a bad value stops start-up even where no plugin takes it.
  const fromPluginEnv = pluginOptionsFromEnv(merged.plugins, env);
  if (fromPluginEnv !== undefined) merged = { ...merged, plugins: fromPluginEnv.plugins };
  layers.push({ source: ENV_SOURCE, value: fromPluginEnv === undefined ? fromEnv : { ...fromEnv, plugins: fromPluginEnv.set } });
  layers.push({ source: 'the command line', value: opts.flags ?? {} });
  merged = deepMerge(merged, opts.flags ?? {});
  // The merged result is what must be valid (a later layer may override an earlier one's value);
  // a refusal names the last layer that set the field it is about.
  const checked = checkConfig(merged);
  if (checked.problems !== undefined) throw refusal(sourceOf(layers, checked.problems[0]!.field), checked.problems);
  return checked.config;
}

const ENV_SOURCE = 'the environment: CHAIN_* variables';

/** One layer of the config as it was read, for naming where a refused value came from. */
interface ConfigLayer {
  readonly source: string;
  readonly value: Record<string, unknown>;
}

/** The last layer whose object holds `field` (a dotted path, array entries by index), else the merged whole. */
function sourceOf(layers: readonly ConfigLayer[], field: string): string {
  const path = field === '' ? [] : field.split('.');
  const holds = (value: unknown): boolean => {
    let at = value;
    for (const part of path) {
      if (Array.isArray(at)) {
        at = at[Number(part)];
        if (at === undefined) return false;
        continue;
      }
      if (!isPlainObject(at) || !(part in at)) return false;
      at = at[part];
    }
    return true;
  };
  for (let i = layers.length - 1; i >= 0; i--) if (path.length > 0 && holds(layers[i]!.value)) return layers[i]!.source;
  return 'the merged configuration';
}

/** A defect of a config: the dotted field it is about and the line that says what is wrong. */
interface ConfigProblem {
  readonly field: string;
  readonly line: string;
}

/** The config with its defaults, or its defects (up to 8 of the schema's, else the first of the checks beyond it). */
function checkConfig(raw: unknown): { config: NodeConfig; problems?: undefined } | { problems: readonly ConfigProblem[] } {
  const withDefaults = Value.Default(ConfigSchema, Value.Clone(raw));
  const errors = [...Value.Errors(ConfigSchema, withDefaults)];
  if (errors.length > 0) {
    return {
      problems: errors.slice(0, 8).map((e) => {
        const field = e.path.replace(/^\//, '').replace(/\//g, '.');
        return { field, line: `${field || '(root)'}: ${e.message}${e.value !== undefined ? ` (got ${JSON.stringify(e.value)})` : ''}` };
      }),
    };
  }
  const config = withDefaults as NodeConfig;
  // A string array to the schema; whether each is an address is checked here, naming the field.
  const badTrusted = badAddress(config.rpc.trusted_ips);
  if (badTrusted !== undefined) return { problems: [{ field: 'rpc.trusted_ips', line: `rpc.trusted_ips: "${badTrusted}" is not an IP address or CIDR range` }] };
  const badSeed = config.p2p.seeds.find((e) => parsePeerEndpoint(e) === null);
  if (badSeed !== undefined) return { problems: [{ field: 'p2p.seeds', line: `p2p.seeds: "${badSeed}" is not <host>:<port> or <node_id>@<host>:<port> (node id: 40 lowercase hex)` }] };
  if (config.p2p.external !== undefined && parseAddress(config.p2p.external) === null) return { problems: [{ field: 'p2p.external', line: `p2p.external: "${config.p2p.external}" is not <host>:<port>` }] };
  const names = new Set<string>();
  for (const [i, p] of config.plugins.entries()) {
    if (names.has(p.name)) return { problems: [{ field: `plugins.${i}.name`, line: `plugins: "${p.name}" is listed twice` }] };
    names.add(p.name);
  }
  return { config };
}

function refusal(source: string, problems: readonly ConfigProblem[]): ConfigError {
  return new ConfigError(`invalid configuration (${source}):\n${problems.map((p) => `  ${p.line}`).join('\n')}`);
}

export function validateConfig(raw: unknown, source = 'config'): NodeConfig {
  const checked = checkConfig(raw);
  if (checked.problems !== undefined) throw refusal(source, checked.problems);
  return checked.config;
}
