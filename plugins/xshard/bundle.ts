import { badRequest, canonicalJson, isLightClientError, lightClient, type ChainError } from '../../kernel/sdk.js';
import type { Client } from './store.js';

/**
 * Checking a proof bundle (decisions.md §75) and a set update (§72) against this shard's client of
 * the other shard, with the kernel's one light client: the header certified by more than 2/3 of
 * the trusted set's power (exactly 2/3 is refused) with no set change allowed, the entry proven
 * under the header's state root at the record's key, and the proven bytes exactly the record's
 * canonical JSON. Pure and deterministic: admission and every validator's block run the same.
 */

type SignatureCheck = lightClient.SignatureCheck;
const TWO_THIRDS = lightClient.TWO_THIRDS;
const encoder = new TextEncoder();

/** The set a client trusts, as the light client reads it. */
export function trustedOf(client: Client): lightClient.TrustedValidators {
  return { chainId: client.chain_id, validators: client.validators.map((v) => ({ address: v.address, public_key: v.public_key, power: BigInt(v.power) })) };
}

/** The client's form of a light-client set (powers are safe integers: genesis stakes and self-stakes in ucoin). */
export function clientValidators(set: readonly lightClient.LightValidator[]): Client['validators'] {
  return set.map((v) => {
    if (v.power > BigInt(Number.MAX_SAFE_INTEGER)) throw badRequest(`validator ${v.address}: power ${v.power} is beyond what a client records`);
    return { address: v.address, public_key: v.public_key, power: Number(v.power) };
  });
}

/** A light-client refusal as §76's 400, naming what failed. */
function refused(what: string, err: unknown): ChainError {
  if (isLightClientError(err)) return badRequest(`${what} does not verify: ${err.message}`, 'fetch a fresh bundle from the other shard, or update this shard\'s client of it (POST /api/v1/cross-shard/headers)');
  throw err;
}

/** The header's `shard` as served, read before anything is verified (§76's fourth check). */
export function servedHeaderShard(proof: Readonly<Record<string, unknown>>): unknown {
  const header = proof['header'];
  return typeof header === 'object' && header !== null ? (header as Record<string, unknown>)['shard'] : undefined;
}

/**
 * §75: a bundle valid at this shard. `record` is the bundle's `lock` or `receipt`, `key` the state
 * key it must be proven at. Answers `proof.height`; throws 400 naming the failed check.
 */
export function verifyBundle(record: Readonly<Record<string, unknown>>, proof: Readonly<Record<string, unknown>>, key: string, client: Client, verify?: SignatureCheck): number {
  let read: lightClient.ProvenRead;
  try {
    read = lightClient.verifyProvenRead({ proof }, trustedOf(client), { trustLevel: TWO_THIRDS, allowSetChange: false, ...(verify ? { verify } : {}) });
  } catch (err) {
    throw refused('the bundle', err);
  }
  if (read.commit.header.shard !== client.shard) throw badRequest(`the bundle does not verify: shard: the header is of shard ${read.commit.header.shard}, not ${client.shard}`);
  if (read.entries.length !== 1) throw badRequest(`the bundle does not verify: entries: proof.entries must hold exactly the record's entry, got ${read.entries.length}`);
  const entry = read.entries[0]!;
  if (entry.key !== key) throw badRequest(`the bundle does not verify: key: the entry proves ${entry.key}, not ${key}`);
  if (entry.value === null) throw badRequest(`the bundle does not verify: entry_proof: the proof shows ${key} absent`);
  const expected = encoder.encode(canonicalJson(record));
  if (!sameBytes(entry.value, expected)) throw badRequest(`the bundle does not verify: record: the proven bytes at ${key} are not the bundle's record`);
  return read.height;
}

/** §72 set update: what the client adopts from a certified header of its shard naming another next set. */
export interface SetUpdate {
  readonly validators: Client['validators'];
  readonly validatorsHash: string;
  readonly trustedHeight: number;
}

export function verifySetUpdate(answer: { header: unknown; certificate: unknown; validators: unknown; next_validators: unknown }, client: Client, verify?: SignatureCheck): SetUpdate {
  let commit: lightClient.VerifiedCommit;
  try {
    commit = lightClient.verifyCommit({ header: answer.header, certificate: answer.certificate, validators: answer.validators }, trustedOf(client), { trustLevel: TWO_THIRDS, allowSetChange: false, ...(verify ? { verify } : {}) });
  } catch (err) {
    throw refused('the header', err);
  }
  const h = commit.header;
  if (h.shard !== client.shard) throw badRequest(`the header does not verify: shard: it is of shard ${h.shard}, not ${client.shard}`);
  // At trusted_height, not only above it: that header is the adopted set's own first, and the one
  // that names the set after it when the set changes at two consecutive heights (no other header
  // the trusted set certifies names that set). Below it, a header of an older set could take the
  // client back to a set that no longer decides.
  if (h.height < client.trusted_height) throw badRequest(`the header does not verify: height: ${h.height} is below trusted_height ${client.trusted_height}`);
  if (h.nextValidatorsHash === h.validatorsHash) throw badRequest(`the header names no new set: next_validators_hash equals validators_hash ${h.validatorsHash}`);
  let next: lightClient.LightValidator[];
  try {
    next = lightClient.nextValidatorsOf(h, answer.next_validators);
  } catch (err) {
    throw refused('next_validators', err);
  }
  return { validators: clientValidators(next), validatorsHash: h.nextValidatorsHash, trustedHeight: h.height + 1 };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
