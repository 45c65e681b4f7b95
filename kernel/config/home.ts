import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from './env.js';

/**
 * A node's home folder (decisions.md §82–83), as `chain init` makes it and `chain node --home`
 * (or `CHAIN_HOME`) reads it:
 *
 *   <home>/keys/validator.json   the consensus key (mode 0600; never leaves the host)
 *   <home>/config/node.json      this node's config layer: network, moniker, RPC and P2P, genesis_hash, seeds
 *   <home>/config/join.json      the signed join statement (`chain genesis join`)
 *   <home>/config/genesis.json   the network's genesis (`chain genesis install`)
 *   <home>/data/                 blocks, state, consensus WAL
 */
export interface HomePaths {
  readonly home: string;
  readonly key: string;
  readonly nodeConfig: string;
  readonly join: string;
  readonly genesis: string;
  readonly data: string;
}

export const HOME_VARIABLE = 'CHAIN_HOME';

export function homePaths(home: string): HomePaths {
  const h = resolve(home);
  return { home: h, key: join(h, 'keys', 'validator.json'), nodeConfig: join(h, 'config', 'node.json'), join: join(h, 'config', 'join.json'), genesis: join(h, 'config', 'genesis.json'), data: join(h, 'data') };
}

/** `<home>/config/node.json` as written, unchecked (the whole config is checked once layered). */
export function readNodeJson(home: string): Record<string, unknown> {
  const file = homePaths(home).nodeConfig;
  if (!existsSync(file)) throw new ConfigError(`${file} does not exist: make the home with "chain init --home ${home}"`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(`${file}: the top level must be an object`);
  return raw as Record<string, unknown>;
}

/**
 * The config layer a home contributes, between `configs/<network>.json` and the environment:
 * the home's key, genesis and data folder, then node.json over them.
 */
export function homeLayer(home: string): Record<string, unknown> {
  const p = homePaths(home);
  return { key_file: p.key, genesis_file: p.genesis, data_dir: p.data, ...readNodeJson(home) };
}
