import { readFileSync } from 'node:fs';
import type { GenesisDoc } from '../config/genesis.js';
import { GenesisRuleError, checkGenesis, type GenesisRuleOptions } from '../config/genesis-rules.js';
import { genesisHash } from '../chain/block-hash.js';

export interface LoadedGenesis {
  readonly doc: GenesisDoc;
  /** `0x` SHA3-256 of the document's canonical JSON (decisions.md §82). */
  readonly hash: string;
}

/** The JSON of a genesis file, unchecked. */
export function readGenesisJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new GenesisRuleError('schema', undefined, (e as Error).message, path);
  }
}

/** Reads a genesis file and checks every rule of decisions.md §82; a broken rule is named with the file. */
export function readGenesis(path: string, o: GenesisRuleOptions): LoadedGenesis {
  const raw = readGenesisJson(path);
  let doc: GenesisDoc;
  try {
    doc = checkGenesis(raw, o);
  } catch (e) {
    if (e instanceof GenesisRuleError) throw e.in(path);
    throw e;
  }
  return { doc, hash: genesisHash(doc) };
}
