import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { canonicalJson } from '../../kernel/codec/json.js';
import { toHex, toHex0x } from '../../kernel/codec/hex.js';
import { shardOf } from '../../kernel/crypto/fnv.js';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import { sortValidators } from '../../kernel/light-client/index.js';
import { proveStateKeys } from '../../kernel/node/proven-reads.js';
import type { NodeServices } from '../../kernel/node/services.js';
import { certify, headerOf, served, stateOf, type TestSigner } from './light-chain.js';
import { FIXTURE_CHAIN_ID, VALIDATOR_KEY, genesisDoc, type Fixture } from './chain-fixture.js';

/*
 * Two shards of one network without processes (decisions.md §71–§76): the fixture chain is shard
 * 0 of 2 (its validator chain:v0.node is shard 0's), and shard 1 exists as its validators' keys,
 * which certify bundles built here exactly as a shard-1 node serves them (GET
 * /api/v1/cross-shard/…/proof), so each test can lie in one place.
 */

/** Validators `chain:s<shard>-<seedBase>-<k>.node` that `shard` of 2 owns, with the given powers. */
export function shardSigners(shard: number, powers: readonly number[], seedBase = 40): TestSigner[] {
  const out: TestSigner[] = [];
  for (let k = 0; out.length < powers.length; k++) {
    const address = `chain:s${shard}-${seedBase}-${k}.node`;
    if (shardOf(address, 2) !== shard) continue;
    const keys = nobleProvider.keygen(new Uint8Array(32).fill((seedBase + out.length) % 256));
    out.push({ address, public_key: toHex(keys.publicKey), power: BigInt(powers[out.length]!), secretKey: keys.secretKey });
  }
  return out;
}

/** The network's one genesis: the fixture validator for shard 0, `others` for shard 1, `accounts` funded. */
export function twoShardGenesis(others: readonly TestSigner[], accounts: Array<{ address: string; balance: bigint }>, params: Record<string, string> = {}): GenesisDoc {
  const doc = genesisDoc(accounts, params);
  const template = doc.validators[0]!;
  return {
    ...doc,
    n_shards: 2,
    validators: [{ ...template, shard: 0 }, ...sortValidators(others).map((v) => ({ ...template, address: v.address, public_key: v.public_key, stake: v.power.toString(), shard: 1 }))],
  };
}

export interface BundleOptions {
  /** The proof's state height (header = height + 1). */
  readonly height: number;
  /** The set that decides the header (served as `validators`). */
  readonly set: readonly TestSigner[];
  /** Who signs the certificate (default: the whole set). */
  readonly signers?: readonly TestSigner[];
  /** The header's `shard` (default 1). */
  readonly shard?: number;
  /** The bytes stored at `key` when they are not the record's canonical JSON (a lie about the record). */
  readonly stored?: string;
  /** The header's next set (default: the same). */
  readonly next?: readonly TestSigner[];
}

/** `{<kind>: record, proof}` as a node of the record's shard answers it (§75), certified by `signers`. */
export async function bundleOf(kind: 'lock' | 'receipt', key: string, record: Record<string, unknown>, o: BundleOptions): Promise<Record<string, unknown> & { proof: Record<string, unknown> }> {
  const state = await stateOf({ [key]: o.stored ?? canonicalJson(record), 'xshard/totals': '{}' });
  const header = { ...headerOf({ chainId: FIXTURE_CHAIN_ID, height: o.height + 1, prevStateRoot: state.root, validators: o.set, ...(o.next ? { next: o.next } : {}) }), shard: o.shard ?? 1 };
  return {
    [kind]: record,
    proof: { height: o.height, state_root: state.root, entries: [await state.entry(key)], header, certificate: certify(header, o.signers ?? o.set), validators: served(o.set) },
  };
}

/** A `GET /api/v1/blocks/:height/commit` answer of shard 1 naming `next` as the next set, plus `next_validators`. */
export function setUpdateOf(height: number, set: readonly TestSigner[], next: readonly TestSigner[], signers: readonly TestSigner[] = set, shard = 1): Record<string, unknown> {
  const header = { ...headerOf({ chainId: FIXTURE_CHAIN_ID, height, prevStateRoot: '0x' + '11'.repeat(32), validators: set, next }), shard };
  return { height, header, certificate: certify(header, signers), validators: served(set), next_validators: served(next) };
}

/** The fixture validator of shard 0 as a signer (its key certifies shard-0 headers). */
export function shardZeroSigner(): TestSigner {
  return { address: 'chain:v0.node', public_key: toHex(VALIDATOR_KEY.publicKey), power: 10_000_000_000n, secretKey: VALIDATOR_KEY.secretKey };
}

/**
 * A bundle of a record of `f`'s own state as a node serves it (§75): the record's bytes and proof
 * at head − 1, the header of the head block, certified by `signers` (the chain's validators).
 */
export async function servedBundle(f: Fixture, kind: 'lock' | 'receipt', key: string, set: readonly TestSigner[]): Promise<Record<string, unknown> & { proof: Record<string, unknown> }> {
  const view = await f.chain.queries.pastState();
  const entry = await f.chain.queries.provenEntry(view, key);
  const block = await f.chain.queries.getBlock(view.height + 1);
  const header = block!.header as unknown as Record<string, unknown>;
  const record = entry.value_hex === null ? null : (JSON.parse(Buffer.from(entry.value_hex, 'hex').toString('utf8')) as Record<string, unknown>);
  return { [kind]: record, proof: { height: view.height, state_root: toHex0x(view.root), entries: [entry], header, certificate: certify(header, set), validators: served(set) } };
}

/**
 * What a plugin's routes use of `NodeServices` over a fixture chain: `chain`, `query` (the fixture
 * fills them in `services`), `shards`, `now` and `proveKeys` (§84 proofs of its own state).
 */
export function nodeServicesOf(f: Fixture, services: Record<string, unknown>): NodeServices {
  Object.assign(services, { shards: f.chain.shards, now: () => 0, proveKeys: (keys: readonly string[]) => proveStateKeys(f.chain, keys) });
  return services as unknown as NodeServices;
}
