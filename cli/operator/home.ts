import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { makeKeyFile, readKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { newMnemonic, seedFromMnemonic } from '../../kernel/crypto/mnemonic.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { nodeIdOf } from '../../kernel/crypto/node-id.js';
import { homePaths, readNodeJson } from '../../kernel/config/home.js';
import { signJoin } from '../../kernel/config/genesis-join.js';
import type { JoinStatement } from '../../kernel/config/genesis.js';
import { readGenesis } from '../../kernel/node/genesis-file.js';
import { parseAddress } from '../../kernel/p2p/tcp/wire.js';
import type { Catalogue } from '../catalogue.js';
import { networkFacts } from './network.js';

/** decisions.md §32: a label is 1 to 32 of a-z, 0-9 and -, not starting or ending with -. */
const LABEL_RE = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;
const CHAIN_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

export interface InitOptions {
  readonly home: string;
  readonly network: string;
  readonly moniker: string;
  readonly configDir: string;
  readonly rpcHost: string;
  readonly rpcPort: number;
  readonly p2pHost: string;
  readonly p2pPort: number;
  /** A recovery phrase to restore the key from; a fresh one is made when absent. */
  readonly words?: string;
}

export interface InitResult {
  readonly node_address: string;
  readonly node_id: string;
  /** The key's own `.human`, which owns the node unless `genesis join --owner-key` names another. */
  readonly owner: string;
  readonly key_file: string;
  readonly config_file: string;
  /** Present when init made the phrase: the only backup of the consensus key. */
  readonly recovery_phrase?: string;
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

function checkPort(name: string, port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--${name} must be a port from 1 to 65535, got ${port}`);
}

/**
 * `chain init` (decisions.md §82): a consensus key that never leaves this host, and node.json, the
 * home's config layer. A home that already holds a key is refused and left as it is.
 */
export function initHome(o: InitOptions, catalogue: Catalogue): InitResult {
  const p = homePaths(o.home);
  if (existsSync(p.key)) throw new Error(`${p.home} already holds a key (${p.key}); nothing changed`);
  if (existsSync(p.nodeConfig)) throw new Error(`${p.home} already holds ${p.nodeConfig}; nothing changed`);
  if (!LABEL_RE.test(o.moniker)) throw new Error(`--moniker "${o.moniker}": 1 to 32 characters of a-z, 0-9 and -, not starting or ending with -`);
  networkFacts(o.network, o.configDir, catalogue); // the network must exist in this build
  checkPort('rpc-port', o.rpcPort);
  checkPort('p2p-port', o.p2pPort);
  const words = o.words ?? newMnemonic();
  const key = makeKeyFile(nobleProvider, seedFromMnemonic(words), o.moniker);
  writeKeyFile(p.key, key.file);
  writeJson(p.nodeConfig, { network: o.network, moniker: o.moniker, rpc: { host: o.rpcHost, port: o.rpcPort }, p2p: { host: o.p2pHost, port: o.p2pPort } });
  return {
    node_address: key.file.node_address!,
    node_id: nodeIdOf(key.keys.publicKey),
    owner: key.file.address,
    key_file: p.key,
    config_file: p.nodeConfig,
    ...(o.words === undefined ? { recovery_phrase: words } : {}),
  };
}

export interface JoinOptions {
  readonly home: string;
  readonly chainId: string;
  readonly p2pExternal: string;
  /** ucoin; the network's min_stake when absent. */
  readonly stake?: bigint;
  /** A key file that owns the node instead of the consensus key's own `.human`. */
  readonly ownerKey?: string;
  readonly configDir: string;
}

/**
 * `chain genesis join` (decisions.md §82): the signed statement this validator brings to the
 * genesis, written to `<home>/config/join.json`; node.json learns the advertised P2P address.
 */
export function writeJoin(o: JoinOptions, catalogue: Catalogue): JoinStatement {
  const p = homePaths(o.home);
  const nodeJson = readNodeJson(o.home);
  if (!CHAIN_ID_RE.test(o.chainId)) throw new Error(`--chain-id "${o.chainId}": 1 to 64 of A-Z, a-z, 0-9, ., _ and -`);
  if (parseAddress(o.p2pExternal) === null) throw new Error(`--p2p-external "${o.p2pExternal}" is not <host>:<port>`);
  const network = typeof nodeJson.network === 'string' ? nodeJson.network : 'devnet';
  const stake = o.stake ?? networkFacts(network, o.configDir, catalogue).minStake;
  if (stake === undefined) throw new Error(`network ${network} declares no min_stake: pass --stake <ucoin>`);
  const key = readKeyFile(p.key, nobleProvider);
  if (!key.file.node_address) throw new Error(`${p.key} names no node_address: make the home with chain init`);
  const owner = o.ownerKey === undefined ? undefined : readKeyFile(o.ownerKey, nobleProvider).keys;
  const join = signJoin({ chainId: o.chainId, address: key.file.node_address, key: key.keys, stake, p2pExternal: o.p2pExternal, ...(owner ? { ownerKey: owner } : {}) }, nobleProvider);
  writeJson(p.join, join);
  const p2p = nodeJson.p2p !== null && typeof nodeJson.p2p === 'object' ? (nodeJson.p2p as Record<string, unknown>) : {};
  writeJson(p.nodeConfig, { ...nodeJson, p2p: { ...p2p, external: o.p2pExternal } });
  return join;
}

export interface InstallResult {
  readonly chain_id: string;
  readonly genesis_hash: string;
  readonly genesis_file: string;
  readonly seeds: string[];
}

/**
 * `chain genesis install` (decisions.md §82): checks the genesis, copies it into the home, pins its
 * hash in node.json and seeds the node with every other validator's endpoint.
 */
export function installGenesis(o: { readonly home: string; readonly file: string; readonly configDir: string }, catalogue: Catalogue): InstallResult {
  const p = homePaths(o.home);
  const nodeJson = readNodeJson(o.home);
  const network = typeof nodeJson.network === 'string' ? nodeJson.network : 'devnet';
  const { doc, hash } = readGenesis(o.file, { minStake: networkFacts(network, o.configDir, catalogue).minStake, provider: nobleProvider });
  const own = readKeyFile(p.key, nobleProvider).file.public_key;
  const seeds = doc.validators.filter((v) => v.public_key !== own).map((v) => v.p2p_endpoint);
  mkdirSync(dirname(p.genesis), { recursive: true });
  if (resolve(o.file) !== p.genesis) copyFileSync(o.file, p.genesis);
  const p2p = nodeJson.p2p !== null && typeof nodeJson.p2p === 'object' ? (nodeJson.p2p as Record<string, unknown>) : {};
  writeJson(p.nodeConfig, { ...nodeJson, genesis_hash: hash, p2p: { ...p2p, seeds } });
  return { chain_id: doc.chain_id, genesis_hash: hash, genesis_file: p.genesis, seeds };
}

/** A join statement file as JSON, naming the file when it is not. */
export function readJoinFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}
