import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { GenesisSchema, type GenesisDoc } from './genesis.js';
import { ConfigError } from './env.js';

export function readGenesis(path: string): GenesisDoc {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigError(`genesis file ${path}: ${(e as Error).message}`);
  }
  const first = Value.Errors(GenesisSchema, raw).First();
  if (first) throw new ConfigError(`genesis file ${path}: ${first.path.replace(/^\//, '').replace(/\//g, '.') || '(root)'}: ${first.message}`);
  const doc = raw as GenesisDoc;
  const seen = new Set<string>();
  for (const v of doc.validators) {
    if (seen.has(v.address)) throw new ConfigError(`genesis file ${path}: validator ${v.address} appears twice`);
    seen.add(v.address);
  }
  return doc;
}
