import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Catalogue } from '../catalogue.js';
import { collectFiles } from './collect.js';
import { initHome, installGenesis, writeJoin } from './home.js';
import { homePaths } from '../../kernel/config/home.js';

export interface TestnetOptions {
  readonly validators: number;
  readonly chainId: string;
  readonly out: string;
  /** One host (name or IP) per validator, in order: where its peers dial it. */
  readonly hosts: readonly string[];
  readonly p2pPort: number;
  readonly rpcPort: number;
  readonly network: string;
  readonly configDir: string;
  readonly genesisTime: number;
}

export interface TestnetResult {
  readonly chain_id: string;
  readonly genesis_hash: string;
  readonly genesis_file: string;
  readonly validators: ReadonlyArray<{ readonly home: string; readonly host: string; readonly node_address: string; readonly node_id: string; readonly p2p_endpoint: string }>;
}

/** The home of validator `i` under a testnet folder. */
export function testnetHome(out: string, i: number): string {
  return join(resolve(out), `validator-${i}`);
}

/**
 * `chain testnet` (decisions.md §83): N homes on one machine made by exactly the operators' steps,
 * init, join, collect and install, for hosts that will each run one of them (the container image
 * and compose file use it). Every service listens on all interfaces of its host.
 */
export function makeTestnet(o: TestnetOptions, catalogue: Catalogue): TestnetResult {
  if (!Number.isInteger(o.validators) || o.validators < 1 || o.validators > 64) throw new Error('--validators must be an integer from 1 to 64');
  if (o.hosts.length !== o.validators) throw new Error(`${o.hosts.length} host(s) for ${o.validators} validator(s): give one per validator`);
  if (new Set(o.hosts).size !== o.hosts.length) throw new Error(`the hosts repeat: ${o.hosts.join(', ')}`);
  for (let i = 0; i < o.validators; i++) if (existsSync(testnetHome(o.out, i))) throw new Error(`${testnetHome(o.out, i)} exists; nothing changed`);
  mkdirSync(resolve(o.out), { recursive: true });
  const made = o.hosts.map((host, i) => {
    const home = testnetHome(o.out, i);
    const init = initHome({ home, network: o.network, moniker: `validator-${i}`, configDir: o.configDir, rpcHost: '0.0.0.0', rpcPort: o.rpcPort, p2pHost: '0.0.0.0', p2pPort: o.p2pPort }, catalogue);
    const statement = writeJoin({ home, chainId: o.chainId, p2pExternal: `${host}:${o.p2pPort}`, configDir: o.configDir }, catalogue);
    return { home, host, node_address: init.node_address, node_id: init.node_id, p2p_endpoint: statement.p2p_endpoint };
  });
  const genesisFile = join(resolve(o.out), 'genesis.json');
  const { doc, hash } = collectFiles({ network: o.network, configDir: o.configDir, chainId: o.chainId, genesisTime: o.genesisTime, accounts: [], params: [], out: genesisFile, joinFiles: made.map((m) => homePaths(m.home).join) }, catalogue);
  for (const m of made) installGenesis({ home: m.home, file: genesisFile, configDir: o.configDir }, catalogue);
  return { chain_id: doc.chain_id, genesis_hash: hash, genesis_file: genesisFile, validators: made };
}
