import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { canonicalJson } from '../codec/json.js';
import { utf8Bytes } from '../codec/utf8.js';
import { bytesOfHex, isHash0x, sha3Hex0x } from './bytes.js';
import { refuse } from './errors.js';
import { parseValidators, totalPower, validatorsHash, type LightValidator } from './validator-set.js';

/**
 * Verifying a block header against a validator set's ML-DSA-65 precommits (decisions.md §84–85),
 * and the trust rule that lets a light client follow set changes. Pure and deterministic: the
 * same answer in a browser, in a wallet and in consensus code (IBC, cross-shard transfers).
 */

/** Checks one ML-DSA-65 signature (FIPS 204, pure, empty context). */
export type SignatureCheck = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

const ML_DSA65_PUBLIC_KEY_BYTES = 1952;
const ML_DSA65_SIGNATURE_BYTES = 3309;

/** noble's ML-DSA-65: pure JavaScript, so it bundles for the browser; a node may pass its faster provider. */
export const nobleSignatureCheck: SignatureCheck = (signature, message, publicKey) => {
  if (signature.length !== ML_DSA65_SIGNATURE_BYTES || publicKey.length !== ML_DSA65_PUBLIC_KEY_BYTES) return false;
  try {
    return ml_dsa65.verify(signature, message, publicKey);
  } catch {
    return false;
  }
};

/** A share of a set's power that signers must hold strictly more than: `signed × denominator > total × numerator`. */
export interface TrustLevel {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** Clients' rule for a changed set (§85, CometBFT's skipping verification): more than 1/3 of the trusted power. */
export const ONE_THIRD: TrustLevel = { numerator: 1n, denominator: 3n };
/** Finality, and the on-chain rule where value moves on the proof (§65 IBC, §72 cross-shard): more than 2/3. */
export const TWO_THIRDS: TrustLevel = { numerator: 2n, denominator: 3n };

export function exceeds(signed: bigint, total: bigint, level: TrustLevel): boolean {
  return signed * level.denominator > total * level.numerator;
}

/** The text a precommit signs (consensus/encoding.ts builds the same bytes for the engine). */
export function precommitMessage(chainId: string, height: number, round: number, blockHash: string, validator: string): string {
  return `ch-vote-v1|${chainId}|precommit|${height}|${round}|${blockHash}|${validator}`;
}

/** A header as served (every field as hashed) and the values a light client reads from it. */
export interface LightHeader {
  /** The header object exactly as served: its canonical JSON is what the block hash covers. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly hash: string;
  readonly chainId: string;
  readonly height: number;
  readonly prevStateRoot: string;
  readonly validatorsHash: string;
  readonly nextValidatorsHash: string;
  readonly shard: number;
}


/** A commit certificate as served: `height`, `round`, `block_hash` and the precommits that name them. */
export interface LightCertificate {
  readonly height: number;
  readonly round: number;
  readonly blockHash: string;
  /** Precommits naming the certificate's height, round and block hash; others never count. */
  readonly precommits: readonly ServedSignature[];
}

/** What `GET /api/v1/blocks/:height/commit` serves (and a proven read's `proof` carries). */
export interface CommitAnswer {
  readonly header: unknown;
  readonly certificate: unknown;
  readonly validators: unknown;
}

/** A set a light client trusts and the chain it belongs to. */
export interface TrustedValidators {
  readonly chainId: string;
  readonly validators: readonly LightValidator[];
}

export interface CommitOptions {
  /**
   * The share of the trusted set's power that must sign a header served with another set:
   * ONE_THIRD for clients (§85), TWO_THIRDS on chain where value moves (§65, §72).
   */
  readonly trustLevel: TrustLevel;
  /** Whether a served set other than the trusted one may be adopted at all (§72 certifies only with the client's own set). */
  readonly allowSetChange?: boolean;
  readonly verify?: SignatureCheck;
}

/** A header certified by a set the caller trusts, and the set trusted after it. */
export interface VerifiedCommit {
  readonly header: LightHeader;
  readonly certificate: LightCertificate;
  /** The served set (`validators`), which signed the header with more than 2/3 of its power. */
  readonly validators: readonly LightValidator[];
  /** Whether `validators` differs from the set that was trusted (the caller now trusts it). */
  readonly setChanged: boolean;
  /** Power of the verified signers of the deciding set: counting stops past the threshold, so at least that, not all who signed. */
  readonly signedPower: bigint;
  readonly totalPower: bigint;
}

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Reads the fields a light client relies on; the header's other fields are only hashed. */
export function parseHeader(raw: unknown): LightHeader {
  if (!isObj(raw)) refuse('shape', 'header is not an object');
  const { chain_id, height, prev_state_root, validators_hash, next_validators_hash, shard } = raw;
  if (typeof chain_id !== 'string' || chain_id.length === 0) refuse('shape', 'header.chain_id is not a string');
  if (!isInt(height) || height < 1) refuse('shape', 'header.height is not a positive integer');
  if (!isHash0x(prev_state_root)) refuse('shape', 'header.prev_state_root is not 0x + 64 hex');
  if (!isHash0x(validators_hash) || !isHash0x(next_validators_hash)) refuse('shape', 'header.validators_hash or next_validators_hash is not 0x + 64 hex');
  if (!isInt(shard)) refuse('shape', 'header.shard is not an integer');
  return { fields: raw, hash: sha3Hex0x(canonicalJson(raw)), chainId: chain_id, height, prevStateRoot: prev_state_root, validatorsHash: validators_hash, nextValidatorsHash: next_validators_hash, shard };
}

export function parseCertificate(raw: unknown): LightCertificate {
  if (!isObj(raw)) refuse('shape', 'certificate is not an object');
  const { height, round, block_hash, precommits } = raw;
  if (!isInt(height) || !isInt(round) || !isHash0x(block_hash)) refuse('shape', 'certificate needs integer height and round and a 0x block_hash');
  if (!Array.isArray(precommits)) refuse('shape', 'certificate.precommits is not an array');
  const counted: ServedSignature[] = [];
  for (const p of precommits) {
    if (!isObj(p)) refuse('shape', 'a precommit is not an object');
    // §85: a precommit counts only when it names the certificate's height, round and block hash.
    if (p['type'] !== 'precommit' || p['height'] !== height || p['round'] !== round || p['block_hash'] !== block_hash) continue;
    const validator = p['validator'];
    const signature = typeof p['signature'] === 'string' ? bytesOfHex(p['signature']) : null;
    if (typeof validator !== 'string' || signature === null) continue;
    counted.push({ validator, signature });
  }
  return { height, round, blockHash: block_hash, precommits: counted };
}

/** One validator's signature as served: who (`validator`, an address of the set) and the bytes. */
export interface ServedSignature {
  readonly validator: string;
  readonly signature: Uint8Array;
}

/**
 * The power of `set` whose members signed: each validator once, with the key this set gives it,
 * over the message `messageOf` builds for it. The one tally behind every threshold here, and the
 * one IBC's `ch-pq-lc-v1` header signatures (§64) count with. `verified` caches checks by
 * (signature index, key) across the two sets of a set change, so a validator in both with one
 * key is verified once. With `enough`, counting stops once the power reached satisfies it (a
 * threshold needs no more: at ~6 ms a signature in the browser, the rest is wasted).
 */
export function tallySignatures(signatures: readonly ServedSignature[], set: readonly LightValidator[], messageOf: (v: LightValidator) => Uint8Array, verify: SignatureCheck, verified = new Map<string, boolean>(), enough?: (power: bigint) => boolean): bigint {
  const byAddress = new Map(set.map((v) => [v.address, v] as const));
  const counted = new Set<string>();
  let power = 0n;
  for (let i = 0; i < signatures.length; i++) {
    const p = signatures[i]!;
    const v = byAddress.get(p.validator);
    if (v === undefined || counted.has(v.address)) continue;
    const cacheKey = `${i}|${v.public_key}`;
    let ok = verified.get(cacheKey);
    if (ok === undefined) {
      const key = bytesOfHex(v.public_key);
      ok = key !== null && verify(p.signature, messageOf(v), key);
      verified.set(cacheKey, ok);
    }
    if (!ok) continue;
    counted.add(v.address);
    power += v.power;
    if (enough?.(power)) break;
  }
  return power;
}

/**
 * The power of `set` whose precommits for the certificate's block verify (§85); with `level`,
 * counting stops once signers hold more than that share of the set's power.
 */
export function signedPower(cert: LightCertificate, set: readonly LightValidator[], chainId: string, verify: SignatureCheck, verified = new Map<string, boolean>(), level?: TrustLevel): bigint {
  const total = level === undefined ? 0n : totalPower(set);
  const enough = level === undefined ? undefined : (power: bigint) => exceeds(power, total, level);
  return tallySignatures(cert.precommits, set, (v) => utf8Bytes(precommitMessage(chainId, cert.height, cert.round, cert.blockHash, v.address)), verify, verified, enough);
}

function sameSet(a: readonly LightValidator[], b: readonly LightValidator[]): boolean {
  return a.length === b.length && validatorsHash(a) === validatorsHash(b);
}

/**
 * Checks a served commit (`header`, `certificate`, `validators`) against a trusted set
 * (decisions.md §85):
 *   - SHA3 of the canonical header is `certificate.block_hash`; the header names the trusted chain
 *     and the certificate's height; `validators` hashes to `header.validators_hash`;
 *   - precommits count when they name the certificate's height, round and block hash and verify
 *     with the key the set gives their validator, each validator once;
 *   - served set = trusted set: its signers must hold more than 2/3 of its power;
 *   - served set ≠ trusted set (when allowed): signers of the trusted set must hold more than
 *     `trustLevel` of the trusted power, and signers of the served set more than 2/3 of the
 *     served power; the caller then trusts the served set.
 * Throws LightClientError naming the first check that fails.
 */
export function verifyCommit(answer: CommitAnswer, trusted: TrustedValidators, options: CommitOptions): VerifiedCommit {
  const header = parseHeader(answer.header);
  const certificate = parseCertificate(answer.certificate);
  const validators = parseValidators(answer.validators);
  if (header.hash !== certificate.blockHash) refuse('block_hash', `SHA3-256 of the canonical header is ${header.hash}, the certificate names ${certificate.blockHash}`);
  if (header.chainId !== trusted.chainId) refuse('chain_id', `header is of chain "${header.chainId}", not the trusted "${trusted.chainId}"`);
  if (header.height !== certificate.height) refuse('height', `header height ${header.height} is not the certificate's ${certificate.height}`);
  const servedHash = validatorsHash(validators);
  if (servedHash !== header.validatorsHash) refuse('validators_hash', `served validators hash to ${servedHash}, the header names ${header.validatorsHash}`);
  const verify = options.verify ?? nobleSignatureCheck;
  const verified = new Map<string, boolean>();
  const trustedTotal = totalPower(trusted.validators);
  if (sameSet(validators, trusted.validators)) {
    const signed = signedPower(certificate, trusted.validators, trusted.chainId, verify, verified, TWO_THIRDS);
    if (!exceeds(signed, trustedTotal, TWO_THIRDS)) refuse('trusted_power', `signers hold ${signed} of ${trustedTotal} trusted power, not more than 2/3`);
    return { header, certificate, validators, setChanged: false, signedPower: signed, totalPower: trustedTotal };
  }
  if (options.allowSetChange === false) refuse('validator_set', `the header's validators (${servedHash}) are not the trusted set (${validatorsHash(trusted.validators)})`);
  const trustedSigned = signedPower(certificate, trusted.validators, trusted.chainId, verify, verified, options.trustLevel);
  const level = options.trustLevel;
  if (!exceeds(trustedSigned, trustedTotal, level)) {
    refuse('trusted_power', `the set changed and signers of the trusted set hold ${trustedSigned} of ${trustedTotal}, not more than ${level.numerator}/${level.denominator}`);
  }
  const servedTotal = totalPower(validators);
  const servedSigned = signedPower(certificate, validators, trusted.chainId, verify, verified, TWO_THIRDS);
  if (!exceeds(servedSigned, servedTotal, TWO_THIRDS)) refuse('served_power', `signers of the served set hold ${servedSigned} of ${servedTotal}, not more than 2/3`);
  return { header, certificate, validators, setChanged: true, signedPower: servedSigned, totalPower: servedTotal };
}

/**
 * The set a certified header names for the next height (§72 set updates): `next` must hash to
 * the header's `next_validators_hash`.
 */
export function nextValidatorsOf(header: LightHeader, next: unknown): LightValidator[] {
  const set = parseValidators(next, 'next_validators');
  const hash = validatorsHash(set);
  if (hash !== header.nextValidatorsHash) refuse('next_validators_hash', `next_validators hash to ${hash}, the header names ${header.nextValidatorsHash}`);
  return set;
}
