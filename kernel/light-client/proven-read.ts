import { canonicalJson } from '../codec/json.js';
import { utf8Bytes } from '../codec/utf8.js';
import { HASH_BYTES, bytesOfHex, isHash0x, sha3Hex0x } from './bytes.js';
import { ONE_THIRD, parseHeader, verifyCommit, type CommitOptions, type TrustedValidators, type VerifiedCommit } from './commit.js';
import { refuse } from './errors.js';
import { verifyStateProof } from './state-proof.js';
import { integerOf, sortValidators, type LightValidator } from './validator-set.js';

/**
 * The §85 checker: a proven read (decisions.md §84) accepted only when its entries are proven
 * under `state_root`, the answer's fields are the proven bytes, and the header carrying that root
 * is certified by a set the client trusts. The SDK, the browser module and the explorer return
 * nothing from a `prove` read that did not pass here.
 */

/** One state key the answer was read from, as proven. */
export interface ProvenEntry {
  readonly key: string;
  readonly exists: boolean;
  /** The stored bytes, null when the key is absent. */
  readonly value: Uint8Array | null;
  /** The bytes decoded as a JSON record (bigints for `{"$big"}` and exact integers), undefined when absent or not JSON. */
  readonly record: Readonly<Record<string, unknown>> | undefined;
}

export interface ProvenRead {
  /** `proof.height`: the state height the answer was read at. */
  readonly height: number;
  readonly stateRoot: string;
  readonly entries: readonly ProvenEntry[];
  readonly commit: VerifiedCommit;
  /** What the client trusts after this answer: the served set when it changed, else the same set. */
  readonly trusted: TrustedValidators;
}

export interface ProvenReadOptions extends Partial<CommitOptions> {
  /**
   * `account`: the answer of `GET /api/v1/accounts/:address` (§84): one entry `acct/<address>`
   * whose `balance`, `nonce` and `tx_count` the answer must carry. `record` (default): each
   * scalar field a stored record shares by name with the answer must be equal.
   */
  readonly kind?: 'account' | 'record';
}

const ACCOUNT_PREFIX = 'acct/';
const ACCOUNT_FIELDS = ['balance', 'nonce', 'tx_count'] as const;
const decoder = new TextDecoder('utf-8', { fatal: true });
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/**
 * The trust anchor: the genesis validators (power = `stake`) of a genesis document whose hash
 * (`0x` SHA3-256 of its canonical JSON, decisions.md §82) the client pinned.
 */
export function trustFromGenesis(genesis: unknown, pinnedHash: string): TrustedValidators {
  const hash = sha3Hex0x(canonicalJson(genesis));
  if (hash !== pinnedHash) refuse('genesis_hash', `the genesis document hashes to ${hash}, not the pinned ${pinnedHash}`);
  if (!isObj(genesis) || typeof genesis['chain_id'] !== 'string' || !Array.isArray(genesis['validators'])) refuse('shape', 'genesis needs chain_id and validators');
  const validators: LightValidator[] = genesis['validators'].map((v: unknown, i) => {
    if (!isObj(v) || typeof v['address'] !== 'string' || typeof v['public_key'] !== 'string') refuse('shape', `genesis validators[${i}] needs address and public_key`);
    const power = integerOf(v['stake']);
    if (power === null || power === 0n) refuse('shape', `genesis validators[${i}].stake is not a positive integer`);
    return { address: v['address'], public_key: v['public_key'], power };
  });
  return { chainId: genesis['chain_id'], validators: sortValidators(validators) };
}

/** A stored record's scalar value in comparable form: bigint for integers (`{"$big"}` included). */
function scalarOf(x: unknown): unknown {
  if (isObj(x)) {
    const keys = Object.keys(x);
    if (keys.length === 1 && keys[0] === '$big' && typeof x['$big'] === 'string') return integerOf(x['$big']) ?? x;
    return undefined;
  }
  if (Array.isArray(x)) return undefined;
  if (typeof x === 'number' && Number.isSafeInteger(x)) return BigInt(x);
  return x;
}

function isScalar(x: unknown): boolean {
  return x === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof x);
}

/** Whether a served value equals a stored one. A served integer beyond 2^53 (JSON.parse's double) compares as the double the stored integer rounds to. */
function sameValue(served: unknown, stored: unknown): boolean {
  if (typeof stored === 'bigint') {
    if (typeof served === 'bigint') return served === stored;
    if (typeof served === 'number') return Number.isSafeInteger(served) ? BigInt(served) === stored : served === Number(stored);
    return false;
  }
  return served === stored;
}

function decodeRecord(key: string, value: Uint8Array | null): Readonly<Record<string, unknown>> | undefined {
  if (key.startsWith(ACCOUNT_PREFIX)) {
    // §84: absent = all zero; other fields of the account record are not proven.
    const stored = value === null ? {} : parseJson(value);
    if (stored === undefined) refuse('answer_field', `entry ${key} is not an account record`);
    const out: Record<string, unknown> = {};
    for (const f of ACCOUNT_FIELDS) {
      const v = stored[f] === undefined ? 0n : scalarOf(stored[f]);
      if (typeof v !== 'bigint') refuse('answer_field', `entry ${key} has a ${f} that is not an integer`);
      out[f] = v;
    }
    return out;
  }
  return value === null ? undefined : parseJson(value);
}

function parseJson(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(bytes));
    return isObj(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function parseEntries(raw: unknown, root: Uint8Array): ProvenEntry[] {
  if (!Array.isArray(raw) || raw.length === 0) refuse('shape', 'proof.entries must be a non-empty array');
  return raw.map((e: unknown, i) => {
    if (!isObj(e) || typeof e['key'] !== 'string' || typeof e['exists'] !== 'boolean') refuse('shape', `proof.entries[${i}] needs key and exists`);
    const key = e['key'];
    const hex = e['value_hex'];
    if (e['exists'] !== (hex !== null)) refuse('shape', `proof.entries[${i}] (${key}): exists must be true exactly when value_hex is not null`);
    const value = hex === null ? null : typeof hex === 'string' ? bytesOfHex(hex) : null;
    if (hex !== null && value === null) refuse('shape', `proof.entries[${i}] (${key}): value_hex is not lowercase hex`);
    if (!verifyStateProof(root, utf8Bytes(key), value, e['proof'])) {
      refuse('entry_proof', `the proof of ${key} (${value === null ? 'absent' : 'present'}) does not give state_root`);
    }
    return provenEntryOf(key, value);
  });
}

/** A stored entry as the checker reads it: its bytes, and the record they decode to. */
export function provenEntryOf(key: string, value: Uint8Array | null): ProvenEntry {
  return { key, exists: value !== null, value, record: decodeRecord(key, value) };
}

/**
 * §85's field rule alone: the answer's fields equal the proven entries (accounts as §84; records:
 * each scalar field the answer shares by name with a stored record). The node runs it before it
 * serves a proven read, so it never serves one an honest client would refuse.
 */
export function checkAnswerFields(answer: Readonly<Record<string, unknown>>, entries: readonly ProvenEntry[], kind: 'account' | 'record'): void {
  if (kind === 'account') {
    const key = `${ACCOUNT_PREFIX}${String(answer['address'])}`;
    if (!entries.some((e) => e.key === key)) refuse('answer_field', `an account answer must carry the entry ${key}`);
    for (const f of ACCOUNT_FIELDS) if (!(f in answer)) refuse('answer_field', `the account answer has no ${f}`);
  }
  for (const entry of entries) {
    if (entry.record === undefined) continue;
    for (const [field, storedRaw] of Object.entries(entry.record)) {
      if (!(field in answer)) continue;
      const stored = scalarOf(storedRaw);
      const served = answer[field];
      if (stored === undefined || !isScalar(served)) continue;
      if (!sameValue(served, stored)) refuse('answer_field', `${field} is ${String(served)} in the answer but ${String(stored)} in the proven ${entry.key}`);
    }
  }
}

/**
 * Checks a proven read against the trusted set (decisions.md §85) and returns what it proved.
 * Throws LightClientError naming the failed check: `shape`, `entry_proof`, `answer_field`,
 * `block_hash`, `chain_id`, `height`, `prev_state_root`, `validators_hash`, `trusted_power`,
 * `served_power`.
 */
export function verifyProvenRead(answer: unknown, trusted: TrustedValidators, options: ProvenReadOptions = {}): ProvenRead {
  if (!isObj(answer) || !isObj(answer['proof'])) refuse('shape', 'the answer carries no proof object');
  const proof = answer['proof'];
  const height = proof['height'];
  const stateRoot = proof['state_root'];
  if (!isInt(height) || !isHash0x(stateRoot)) refuse('shape', 'proof needs an integer height and a 0x state_root');
  const root = bytesOfHex(stateRoot, HASH_BYTES)!;
  const entries = parseEntries(proof['entries'], root);
  checkAnswerFields(answer, entries, options.kind ?? 'record');
  const header = parseHeader(proof['header']);
  const certHeight = isObj(proof['certificate']) ? proof['certificate']['height'] : undefined;
  if (header.height !== height + 1 || certHeight !== header.height) refuse('height', `header height ${header.height} and certificate height ${String(certHeight)} must both be proof.height + 1 = ${height + 1}`);
  if (header.prevStateRoot !== stateRoot) refuse('prev_state_root', `header.prev_state_root ${header.prevStateRoot} is not the proof's state_root ${stateRoot}`);
  const commit = verifyCommit(
    { header: proof['header'], certificate: proof['certificate'], validators: proof['validators'] },
    trusted,
    { trustLevel: options.trustLevel ?? ONE_THIRD, ...(options.allowSetChange !== undefined ? { allowSetChange: options.allowSetChange } : {}), ...(options.verify ? { verify: options.verify } : {}) },
  );
  return { height, stateRoot, entries, commit, trusted: commit.setChanged ? { chainId: trusted.chainId, validators: commit.validators } : trusted };
}
