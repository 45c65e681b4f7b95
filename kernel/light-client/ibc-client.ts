import { utf8Bytes } from '../codec/utf8.js';
import { bytesOfHex, compareBytes, isHash0x } from './bytes.js';
import { TWO_THIRDS, exceeds, nobleSignatureCheck, tallySignatures, type ServedSignature, type SignatureCheck } from './commit.js';
import { refuse } from './errors.js';
import { ibcHeaderMessage } from './ibc-header.js';
import { verifyStateProof } from './state-proof.js';
import { integerOf, totalPower, type LightValidator } from './validator-set.js';

/**
 * The on-chain IBC light client's checks (decisions.md §64–66, §69), once for every caller: the
 * `ibc` plugin judges client updates and packet proofs with them in consensus, and a relayer or a
 * wallet can run the same code before submitting. A header is trusted only when distinct keys of
 * the trusted set holding more than 2/3 of its power signed its `ch-pq-lc-v1` text, and a
 * validator-set change is followed only through the Merkle proof of `ibc/valset` under the
 * header's own state root: the relayer vouches for nothing.
 */

/** A validator of an IBC header (§64): its ML-DSA-65 consensus key and its power (self-stake). */
export interface IbcValidator {
  readonly public_key: string;
  readonly power: bigint;
}

/** The fields of a §64 header a verifier uses; `message`, `signed_power`, `total_power` and each signature's `validator` and `power` are recomputed, never read. */
export interface IbcHeader {
  readonly chainId: string;
  readonly height: number;
  readonly blockHash: string;
  readonly stateRoot: string;
  /** Ascending by public key, each key once. */
  readonly validators: readonly IbcValidator[];
  /** Each served signature under the public key it names. */
  readonly signatures: readonly ServedSignature[];
  readonly validatorsProof: unknown;
}

/** A header whose signatures and validator set verified. */
export interface VerifiedIbcHeader {
  readonly header: IbcHeader;
  /** Power of the trusted set's verified signers (counting stops past 2/3). */
  readonly signedPower: bigint;
  readonly totalPower: bigint;
}

/** The provable keys of §66, as the `ibc` plugin writes them and the counterparty proves them. */
export const IBC_VALSET_KEY = 'ibc/valset';
export const ibcCommitmentKey = (channel: string, sequence: bigint | number): string => `ibc/commitments/${channel}/${sequence}`;
export const ibcReceiptKey = (channel: string, sequence: bigint | number): string => `ibc/receipts/${channel}/${sequence}`;
export const ibcClientHeightKey = (chainId: string): string => `ibc/clients/${chainId}/height`;

/** `ibc/valset`'s value (§66): `<public_key>|<power>` per validator, ascending by key, `\n`-joined, no final newline. */
export function ibcValsetValue(validators: readonly IbcValidator[]): string {
  return validators.map((v) => `${v.public_key}|${v.power.toString(10)}`).join('\n');
}

/** The order of a header's `validators` and of `ibc/valset`: ascending by the keys' bytes. */
export function compareIbcKeys(a: string, b: string): number {
  return compareBytes(bytesOfHex(a) ?? new Uint8Array(), bytesOfHex(b) ?? new Uint8Array());
}

const CHAIN_ID_RE = /^[a-z0-9-]{1,64}$/;
const PUBLIC_KEY_RE = /^[0-9a-f]+$/;
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function parseIbcValidators(raw: unknown): IbcValidator[] {
  if (!Array.isArray(raw) || raw.length === 0) refuse('shape', 'header.validators must be a non-empty array');
  const out: IbcValidator[] = [];
  let previous: Uint8Array | undefined;
  for (let i = 0; i < raw.length; i++) {
    const v: unknown = raw[i];
    if (!isObj(v)) refuse('shape', `header.validators[${i}] is not an object`);
    const key = v['public_key'];
    const power = integerOf(v['power']);
    if (typeof key !== 'string' || !PUBLIC_KEY_RE.test(key) || key.length % 2 !== 0) refuse('shape', `header.validators[${i}].public_key is not lowercase hex`);
    if (power === null || power === 0n) refuse('shape', `header.validators[${i}].power is not a positive integer`);
    const bytes = bytesOfHex(key)!;
    // One order, each key once: the set's text in ibc/valset has one spelling, and a key listed twice would count twice.
    if (previous !== undefined && compareBytes(previous, bytes) >= 0) refuse('shape', `header.validators must be strictly ascending by public_key (entry ${i})`);
    previous = bytes;
    out.push({ public_key: key, power });
  }
  return out;
}

function parseIbcSignatures(raw: unknown): ServedSignature[] {
  if (!Array.isArray(raw)) refuse('shape', 'header.signatures must be an array');
  return raw.map((s: unknown, i) => {
    if (!isObj(s)) refuse('shape', `header.signatures[${i}] is not an object`);
    const key = s['public_key'];
    const signature = typeof s['signature'] === 'string' ? bytesOfHex(s['signature']) : null;
    if (typeof key !== 'string' || !PUBLIC_KEY_RE.test(key) || signature === null || s['signature'] === '' || (s['signature'] as string).startsWith('0x')) {
      refuse('shape', `header.signatures[${i}] needs public_key and signature as lowercase hex`);
    }
    return { validator: key, signature };
  });
}

/** Reads a header record as served (§64); throws LightClientError `shape` naming the field. */
export function parseIbcHeader(raw: unknown): IbcHeader {
  if (!isObj(raw)) refuse('shape', 'header is not an object');
  const { chain_id, height, block_hash, state_root } = raw;
  if (typeof chain_id !== 'string' || !CHAIN_ID_RE.test(chain_id)) refuse('shape', 'header.chain_id must be 1-64 of a-z, 0-9, -');
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 1) refuse('shape', 'header.height is not a positive integer');
  if (!isHash0x(block_hash) || !isHash0x(state_root)) refuse('shape', 'header.block_hash and header.state_root must be 0x + 64 lowercase hex');
  if (!('validators_proof' in raw)) refuse('shape', 'header.validators_proof is missing');
  return { chainId: chain_id, height, blockHash: block_hash, stateRoot: state_root, validators: parseIbcValidators(raw['validators']), signatures: parseIbcSignatures(raw['signatures']), validatorsProof: raw['validators_proof'] };
}

/** Whether `proof` shows that under `stateRoot` (0x hex) `key` holds the UTF-8 `value`, or (null) is absent. Never throws. */
export function verifyIbcProof(stateRoot: string, key: string, value: string | null, proof: unknown): boolean {
  const root = isHash0x(stateRoot) ? bytesOfHex(stateRoot, 32) : null;
  if (root === null) return false;
  return verifyStateProof(root, utf8Bytes(key), value === null ? null : utf8Bytes(value), proof);
}

/**
 * Verifies a served header (§65) against `trusted`, the client's set, or null when the header
 * creates the client (its own set is then the one trusted: the operator vouches for it):
 *   - `validators_proof` proves `ibc/valset` = the header's `validators` under its `state_root`;
 *   - valid ML-DSA-65 signatures over the rebuilt `ch-pq-lc-v1` text by distinct keys of the
 *     trusted set hold more than 2/3 of its power (3 × signed > 2 × total).
 * Throws LightClientError: `shape`, `validators_proof` or `trusted_power`.
 */
export function verifyIbcHeader(raw: unknown, trusted: readonly IbcValidator[] | null, verify: SignatureCheck = nobleSignatureCheck): VerifiedIbcHeader {
  const header = parseIbcHeader(raw);
  if (!verifyIbcProof(header.stateRoot, IBC_VALSET_KEY, ibcValsetValue(header.validators), header.validatorsProof)) {
    refuse('validators_proof', `validators_proof does not prove ${IBC_VALSET_KEY} = the header's validators under state_root ${header.stateRoot}`);
  }
  const set: LightValidator[] = (trusted ?? header.validators).map((v) => ({ address: v.public_key, public_key: v.public_key, power: v.power }));
  const total = totalPower(set);
  const message = utf8Bytes(ibcHeaderMessage(header.chainId, header.height, header.blockHash, header.stateRoot));
  const signed = tallySignatures(header.signatures, set, () => message, verify, new Map(), (power) => exceeds(power, total, TWO_THIRDS));
  if (!exceeds(signed, total, TWO_THIRDS)) {
    refuse('trusted_power', `signatures over ${ibcHeaderMessage(header.chainId, header.height, header.blockHash, header.stateRoot)} by distinct keys of the ${trusted === null ? "header's own" : "client's"} set hold ${signed} of ${total} power, not more than 2/3`);
  }
  return { header, signedPower: signed, totalPower: total };
}
