/**
 * The browser crypto module (decisions.md §86): what a page needs to hold keys, sign and check
 * proven reads without trusting the server, with hex strings at the edges. esbuild bundles this
 * file alone (sdk/build/bundle.ts) into `chain-crypto-<version>.mjs`, which the gateway serves at
 * `/api/v1/wasm/…` with its manifest; every function is the SDK's, and below it the kernel's own
 * layouts and light client.
 */
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { bytesOfHex, hexOf, sha3Hex0x } from '../kernel/light-client/bytes.js';
import { utf8Bytes } from '../kernel/codec/utf8.js';
import { canonicalJson } from '../kernel/codec/json.js';
import { integerOf, sortValidators, type LightValidator } from '../kernel/light-client/validator-set.js';
import { LightClientError, ONE_THIRD, trustFromGenesis as kernelTrustFromGenesis, verifyProvenRead as kernelVerifyProvenRead, type TrustedValidators } from '../kernel/light-client/index.js';
import { SdkError } from './errors.js';
import { addressOf as keyAddressOf, generatePhrase as newPhrase, keyFromPhrase, keyFromSeed, randomKey, type ChainKey } from './keys.js';
import { OperationNonces, signOperation as sdkSignOperation, signTransfer as sdkSignTransfer } from './signing.js';
import { SDK_VERSION } from './version.js';

export { LightClientError, SdkError };

export const version: string = SDK_VERSION;

/** A key as the module hands it out: hex, no `0x`. */
export interface KeyInfo {
  readonly seed_hex: string;
  readonly public_key: string;
  readonly address: string;
}

const info = (k: ChainKey): KeyInfo => ({ seed_hex: k.seedHex, public_key: k.publicKeyHex, address: k.address });

/** The key of the last seed used, kept so that signing twice does not generate the key pair twice. */
let lastKey: ChainKey | undefined;
function keyOf(seedHex: string): ChainKey {
  if (lastKey?.seedHex !== seedHex.toLowerCase()) lastKey = keyFromSeed(seedHex);
  return lastKey;
}

/** decisions.md §4: the key pair of a 32-byte seed (64 hex), a random one when absent. */
export function keygen(seedHex?: string): KeyInfo {
  return info(seedHex === undefined ? randomKey() : keyFromSeed(seedHex));
}

/** A fresh 24-word BIP-39 English phrase. */
export function generatePhrase(): string[] {
  return newPhrase().split(' ');
}

/** decisions.md §4: the key of a phrase (an array of words or one string). */
export function fromPhrase(words: string | readonly string[]): KeyInfo {
  return info(keyFromPhrase(typeof words === 'string' ? words : words.join(' ')));
}

/** decisions.md §3: the `.human` address of a public key. */
export function addressOf(publicKeyHex: string): string {
  return keyAddressOf(publicKeyHex);
}

/** ML-DSA-65 signature (hex) of the UTF-8 text, FIPS 204 deterministic. */
export function sign(seedHex: string, text: string): string {
  return hexOf(keyOf(seedHex).sign(utf8Bytes(text)));
}

export function verify(publicKeyHex: string, text: string, signatureHex: string): boolean {
  const key = bytesOfHex(publicKeyHex.toLowerCase());
  const sig = bytesOfHex(signatureHex.toLowerCase());
  if (key === null || sig === null || key.length !== 1952 || sig.length !== 3309) return false;
  try {
    return ml_dsa65.verify(sig, utf8Bytes(text), key);
  } catch {
    return false;
  }
}

/** `0x` + SHA3-256 of the UTF-8 text. */
export function sha3_256(text: string): string {
  return sha3Hex0x(text);
}

type Amount = number | bigint | string;
const amount = (x: Amount, name: string): bigint | number => {
  if (typeof x === 'string') {
    if (!/^(0|[1-9][0-9]*)$/.test(x)) throw new SdkError('input', `${name} must be a whole number of ucoin`);
    return BigInt(x);
  }
  return x;
};

/** A `POST /api/v1/transactions` body signed `ch-tx-v4` (§94); `from` is the key's address. */
export function signTransfer(seedHex: string, t: { chain_id: string; to: string; value: Amount; nonce: Amount; gas_price: Amount; data?: string; gas_limit?: number }): Record<string, unknown> {
  return sdkSignTransfer(keyOf(seedHex), {
    chainId: t.chain_id,
    to: t.to,
    value: amount(t.value, 'value'),
    nonce: amount(t.nonce, 'nonce'),
    gasPrice: amount(t.gas_price, 'gas_price'),
    ...(t.data !== undefined ? { data: t.data } : {}),
    ...(t.gas_limit !== undefined ? { gasLimit: t.gas_limit } : {}),
  });
}

const nonces = new OperationNonces();

/**
 * An operation's body with `ch-tx-v4` `signature`, `public_key` and `nonce` (§6, §94): a fresh
 * millisecond nonce unless given. `actor_field` and `value_field` (from the node's description)
 * default to §6's preference order over the body's fields.
 */
export function signOperation(
  seedHex: string,
  o: { chain_id: string; type: string; target: string; body: Record<string, unknown>; gas_price: Amount; nonce?: Amount; gas_limit?: number; actor_field?: string; value_field?: string | null },
): Record<string, unknown> {
  return sdkSignOperation(keyOf(seedHex), {
    chainId: o.chain_id,
    type: o.type,
    target: o.target,
    body: o.body,
    gasPrice: amount(o.gas_price, 'gas_price'),
    nonce: o.nonce === undefined ? nonces.next() : amount(o.nonce, 'nonce'),
    ...(o.gas_limit !== undefined ? { gasLimit: o.gas_limit } : {}),
    ...(o.actor_field !== undefined ? { actorField: o.actor_field } : {}),
    ...(o.value_field !== undefined ? { valueField: o.value_field } : {}),
  });
}

/** A trusted set as JSON carries it: `chain_id` and validators with `power` as a decimal string. */
export interface TrustedJson {
  readonly chain_id: string;
  readonly validators: ReadonlyArray<{ readonly address: string; readonly public_key: string; readonly power: string }>;
}

const toJson = (t: TrustedValidators): TrustedJson => ({ chain_id: t.chainId, validators: t.validators.map((v) => ({ address: v.address, public_key: v.public_key, power: v.power.toString() })) });

function fromJson(t: unknown): TrustedValidators {
  const o = (typeof t === 'object' && t !== null ? t : {}) as { chain_id?: unknown; chainId?: unknown; validators?: unknown };
  const chainId = o.chain_id ?? o.chainId;
  if (typeof chainId !== 'string' || !Array.isArray(o.validators)) throw new LightClientError('shape', 'trusted needs chain_id and validators');
  const validators: LightValidator[] = o.validators.map((v: unknown, i) => {
    const x = (typeof v === 'object' && v !== null ? v : {}) as { address?: unknown; public_key?: unknown; power?: unknown };
    const power = typeof x.power === 'bigint' ? x.power : integerOf(x.power);
    if (typeof x.address !== 'string' || typeof x.public_key !== 'string' || power === null) throw new LightClientError('shape', `trusted.validators[${i}] needs address, public_key and an integer power`);
    return { address: x.address, public_key: x.public_key, power };
  });
  return { chainId, validators: sortValidators(validators) };
}

/** decisions.md §82: `0x` SHA3-256 of the canonical JSON of a genesis document: the hash a client pins. */
export function genesisHash(genesis: unknown): string {
  return sha3Hex0x(canonicalJson(genesis));
}

/** The trust anchor of §85: the validators of a genesis document whose hash the caller pinned. */
export function trustFromGenesis(genesis: unknown, genesisHash: string): TrustedJson {
  return toJson(kernelTrustFromGenesis(genesis, genesisHash));
}

/**
 * decisions.md §85: checks a `prove=true` answer against the trusted set (from `trustFromGenesis`
 * or an earlier check's `trusted`). Throws LightClientError naming the failed check; returns the
 * proven height and the set to trust from now on. `kind` is `account` for an account read
 * (detected when absent), else `record`.
 */
export function verifyProvenRead(answer: unknown, trusted: unknown, options: { kind?: 'account' | 'record' } = {}): { height: number; state_root: string; set_changed: boolean; trusted: TrustedJson } {
  const kind = options.kind ?? detectKind(answer);
  const read = kernelVerifyProvenRead(answer, fromJson(trusted), { kind, trustLevel: ONE_THIRD });
  return { height: read.height, state_root: read.stateRoot, set_changed: read.commit.setChanged, trusted: toJson(read.trusted) };
}

/**
 * An account answer proves `acct/<address>` last, alone for an address or after the name's record
 * for a read through a name (`names/nft/<name>`, then the owner's account). A record read may
 * prove an account too (a vault's config: its record, then its account), and is a record.
 */
function detectKind(answer: unknown): 'account' | 'record' {
  const a = answer as { address?: unknown; proof?: { entries?: Array<{ key?: unknown }> } } | null;
  const entries = a?.proof?.entries;
  if (!Array.isArray(entries) || entries.length === 0) return 'record';
  const last = entries[entries.length - 1]?.key;
  const throughName = entries.slice(0, -1).every((e) => typeof e?.key === 'string' && e.key.startsWith('names/nft/'));
  return last === `acct/${String(a?.address)}` && throughName ? 'account' : 'record';
}
