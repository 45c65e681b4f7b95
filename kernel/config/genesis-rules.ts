import { Value } from '@sinclair/typebox/value';
import { parseHex } from '../codec/hex.js';
import { deriveAddress, isAddress } from '../crypto/address.js';
import { nodeIdOf } from '../crypto/node-id.js';
import { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES, type SignatureProvider } from '../crypto/provider.js';
import { parsePeerEndpoint } from '../p2p/endpoint.js';
import { GenesisSchema, JoinStatementSchema, type GenesisDoc, type GenesisValidator, type JoinStatement } from './genesis.js';
import { genesisJoinMessage } from './genesis-join.js';
import { shardOf } from '../crypto/fnv.js';
import { isShardOwned } from '../crypto/shard.js';

/** The rules of decisions.md §82 a genesis (or one join statement) can break; each refusal names one. */
export type GenesisRule = 'schema' | 'duplicate address' | 'duplicate public_key' | 'duplicate account' | 'owner' | 'p2p_endpoint' | 'stake' | 'signature' | 'owner_signature' | 'chain_id' | 'shard';

/**
 * A genesis or join statement that breaks a rule of §82. Not a ConfigError: a node refuses to
 * start on it with exit 1 (decisions.md §83), as `chain genesis validate` does.
 */
export class GenesisRuleError extends Error {
  constructor(
    readonly rule: GenesisRule,
    /** The validator the rule names, when it is about one. */
    readonly validator: string | undefined,
    readonly detail: string,
    /** The file the document came from, when it came from one. */
    readonly source?: string,
  ) {
    super(`${source !== undefined ? `${source}: ` : ''}${rule}: ${validator !== undefined ? `validator ${validator}: ` : ''}${detail}`);
    this.name = 'GenesisRuleError';
  }

  /** The same refusal, naming the file it was read from. */
  in(source: string): GenesisRuleError {
    return new GenesisRuleError(this.rule, this.validator, this.detail, source);
  }
}

/**
 * The genesis file is not the one this node must run: its hash differs from the pinned
 * `genesis_hash`, or from the chain in the data folder. Start-up exits 1 naming both hashes
 * (decisions.md §83).
 */
export class GenesisMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GenesisMismatchError';
  }
}

export interface GenesisRuleOptions {
  /** `min_stake` when the genesis's `params` do not set it: the network's (config, then the declaring plugin's default); undefined checks no minimum. */
  readonly minStake: bigint | undefined;
  readonly provider: Pick<SignatureProvider, 'verify'>;
}

function schemaError(schema: typeof GenesisSchema | typeof JoinStatementSchema, raw: unknown): GenesisRuleError | undefined {
  const first = Value.Errors(schema, raw).First();
  if (!first) return undefined;
  const path = first.path.replace(/^\//, '').replace(/\//g, '.') || '(root)';
  const at = /^validators\.(\d+)/.exec(path);
  const named = at ? (raw as { validators: Array<{ address?: unknown }> }).validators[Number(at[1])]?.address : undefined;
  return new GenesisRuleError('schema', typeof named === 'string' ? named : undefined, `${path}: ${first.message}`);
}

/** The rules one validator's statement must meet on its own (owner, endpoint, stake, both signatures). */
function checkValidator(chainId: string, v: GenesisValidator, minStake: bigint | undefined, provider: Pick<SignatureProvider, 'verify'>): void {
  const publicKey = parseHex(v.public_key, ML_DSA65_PUBLIC_KEY_BYTES)!;
  if ((v.owner_public_key === undefined) !== (v.owner_signature === undefined)) {
    throw new GenesisRuleError('owner', v.address, 'owner_public_key and owner_signature come together');
  }
  const ownerKey = v.owner_public_key === undefined ? publicKey : parseHex(v.owner_public_key, ML_DSA65_PUBLIC_KEY_BYTES)!;
  const ownerAddress = deriveAddress(ownerKey);
  if (v.owner !== ownerAddress) {
    throw new GenesisRuleError('owner', v.address, `owner ${v.owner} is not the address of ${v.owner_public_key === undefined ? 'the validator\'s own key' : 'owner_public_key'} (${ownerAddress})`);
  }
  const endpoint = parsePeerEndpoint(v.p2p_endpoint);
  if (endpoint === null || endpoint.nodeId === undefined) throw new GenesisRuleError('p2p_endpoint', v.address, `"${v.p2p_endpoint}" is not <node_id>@<host>:<port>`);
  const nodeId = nodeIdOf(publicKey);
  if (endpoint.nodeId !== nodeId) throw new GenesisRuleError('p2p_endpoint', v.address, `node id ${endpoint.nodeId} is not its key's (${nodeId})`);
  if (minStake !== undefined && BigInt(v.stake) < minStake) throw new GenesisRuleError('stake', v.address, `stake ${v.stake} ucoin is below min_stake ${minStake}`);
  const message = genesisJoinMessage(chainId, v);
  if (!provider.verify(parseHex(v.signature, ML_DSA65_SIGNATURE_BYTES)!, message, publicKey)) {
    throw new GenesisRuleError('signature', v.address, `signature does not verify with its public_key over ch-genesis-join-v1|${chainId}|<address>|<public_key>|<owner>|<stake>|<p2p_endpoint>`);
  }
  if (v.owner_signature !== undefined && !provider.verify(parseHex(v.owner_signature, ML_DSA65_SIGNATURE_BYTES)!, message, ownerKey)) {
    throw new GenesisRuleError('owner_signature', v.address, `owner_signature does not verify with owner_public_key over ch-genesis-join-v1|${chainId}|…`);
  }
}

/** `min_stake` a genesis holds its validators to: its own parameter, else the network's. */
export function genesisMinStake(doc: Pick<GenesisDoc, 'params'>, networkMinStake: bigint | undefined): bigint | undefined {
  const own = doc.params.min_stake;
  return own !== undefined ? BigInt(own) : networkMinStake;
}

/**
 * Every rule of decisions.md §82 over a whole genesis: schema, distinct validator addresses and
 * keys, owners, endpoints whose node id is the key's, stakes at least `min_stake`, and signatures
 * over the join text with the genesis's `chain_id`. Owners may repeat. Throws the first broken rule.
 */
export function checkGenesis(raw: unknown, o: GenesisRuleOptions): GenesisDoc {
  const bad = schemaError(GenesisSchema, raw);
  if (bad) throw bad;
  const doc = raw as GenesisDoc;
  const addresses = new Set<string>();
  const keys = new Map<string, string>();
  for (const v of doc.validators) {
    if (addresses.has(v.address)) throw new GenesisRuleError('duplicate address', v.address, 'appears twice among the validators');
    addresses.add(v.address);
    const other = keys.get(v.public_key);
    if (other !== undefined) throw new GenesisRuleError('duplicate public_key', v.address, `has the public_key of ${other}`);
    keys.set(v.public_key, v.address);
  }
  const accounts = new Set<string>();
  for (const a of doc.accounts) {
    if (!isAddress(a.address)) throw new GenesisRuleError('schema', undefined, `accounts: "${a.address}" is not a chain address`);
    if (accounts.has(a.address)) throw new GenesisRuleError('duplicate account', undefined, `${a.address} is listed twice in accounts`);
    accounts.add(a.address);
  }
  const seeds = new Set<string>();
  for (const r of doc.account_ranges ?? []) {
    // Two ranges of one seed would fund the same addresses twice over.
    if (seeds.has(r.seed)) throw new GenesisRuleError('duplicate account', undefined, `account_ranges: seed "${r.seed}" is listed twice`);
    seeds.add(r.seed);
  }
  checkShards(doc);
  const minStake = genesisMinStake(doc, o.minStake);
  for (const v of doc.validators) checkValidator(doc.chain_id, v, minStake, o.provider);
  return doc;
}

/**
 * decisions.md §71: in a sharded genesis every validator names the shard that owns both its
 * `.node` and its owner, and every shard has a validator (it must make blocks); a one-shard
 * genesis names no shard but 0. The refusal names the address.
 */
function checkShards(doc: GenesisDoc): void {
  const n = doc.n_shards ?? 1;
  const staffed = new Set<number>();
  for (const v of doc.validators) {
    const shard = v.shard ?? (n === 1 ? 0 : undefined);
    if (shard === undefined) throw new GenesisRuleError('shard', v.address, `a genesis of ${n} shards names each validator's shard`);
    if (shard >= n) throw new GenesisRuleError('shard', v.address, `shard ${shard} is not below n_shards ${n}`);
    for (const address of [v.address, v.owner]) {
      const owner = shardOf(address, n);
      if (owner !== shard) throw new GenesisRuleError('shard', v.address, `${address} belongs to shard ${owner}, but the validator is listed under shard ${shard}`);
    }
    staffed.add(shard);
  }
  for (let s = 0; s < n; s++) if (!staffed.has(s)) throw new GenesisRuleError('shard', undefined, `shard ${s} of ${n} has no validator`);
}

/**
 * The part of a (sharded) genesis that shard `shard` starts from (decisions.md §71): its own
 * validators as its active set, and the accounts it owns funded. The document itself (and its
 * hash, block 1's `parent_hash`) stays the whole network's. A one-shard genesis is its own part.
 */
export function genesisOfShard(doc: GenesisDoc, shard: number): GenesisDoc {
  const n = doc.n_shards ?? 1;
  if (n === 1) return doc;
  return { ...doc, validators: doc.validators.filter((v) => v.shard === shard), accounts: doc.accounts.filter((a) => (isShardOwned(a.address) ? shardOf(a.address, n) === shard : shard === 0)) };
}

/** One join statement, as `collect` takes it: its schema, its own rules, and the chain it is for. */
export function checkJoin(raw: unknown, chainId: string, o: GenesisRuleOptions & { readonly params?: Readonly<Record<string, string>> }): JoinStatement {
  const bad = schemaError(JoinStatementSchema, raw);
  if (bad) throw bad;
  const join = raw as JoinStatement;
  if (join.chain_id !== chainId) throw new GenesisRuleError('chain_id', join.address, `the statement is for chain "${join.chain_id}", not "${chainId}"`);
  const { chain_id: _c, ...v } = join;
  checkValidator(chainId, v, genesisMinStake({ params: o.params ?? {} }, o.minStake), o.provider);
  return join;
}
