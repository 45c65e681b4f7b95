import { sha3Hex0x } from './hash.js';

export const ADDRESS_PREFIX = 'chain:';

/** decisions.md §3: `chain:` + first 15 hex of SHA3-256(public key) + `.human`. */
export function deriveAddress(publicKey: Uint8Array): string {
  // The digest as hex straight from OpenSSL: admission derives an address for every transaction.
  return ADDRESS_PREFIX + sha3Hex0x(publicKey).slice(2, 17) + '.human';
}

export type AddressKind = 'human' | 'node' | 'app' | 'vault' | 'agent' | 'system' | 'ibc-escrow';

const KIND_RE = /^chain:([a-z0-9][a-z0-9_-]{0,62})\.(human|node|app|vault|agent)$/;
// `chain:models.registry` is the one system address outside `chain:system.*` (part 1: model registrations sign for it).
const SYSTEM_RE = /^chain:(?:system\.[a-z][a-z0-9_.-]{0,62}|models\.registry)$/;
const ESCROW_RE = /^chain:ibc\.escrow\.[A-Za-z0-9_-]{1,64}$/;

const SUFFIX_KINDS: ReadonlyArray<readonly [string, AddressKind]> = (['human', 'node', 'app', 'vault', 'agent'] as const).map((k) => [`.${k}`, k] as const);

/**
 * The kind of an address, or null when it is not a well-formed chain address. Asked for every
 * address a key is built from or checked against (each state read of a plugin's declared store),
 * so the system and escrow expressions run only on the prefixes they can match, and the common
 * kinds are told by their suffix once KIND_RE has matched (its label holds no dot), without a
 * match array.
 */
export function addressKind(address: string): AddressKind | null {
  // What the expressions did before the prefix tests: read any value as its text (a plugin's bad
  // validator update names `undefined`, which must stay "not an address", not a TypeError in a block).
  if (typeof address !== 'string') address = `${address as unknown as string}`;
  if ((address.startsWith('chain:system.') || address === 'chain:models.registry') && SYSTEM_RE.test(address)) return 'system';
  if (address.startsWith('chain:ibc.escrow.') && ESCROW_RE.test(address)) return 'ibc-escrow';
  if (!KIND_RE.test(address)) return null;
  for (const [suffix, kind] of SUFFIX_KINDS) if (address.endsWith(suffix)) return kind;
  return null;
}

/** Longest address any route or body takes. */
export const ADDRESS_MAX_LENGTH = 128;

/**
 * `isAddress` as one JSON Schema `pattern` (ECMAScript), built from the same expressions, so a
 * route's TypeBox schema and a client's (the assistant tool server's input schemas) refuse exactly
 * what `isAddress` refuses (kernel/node/read-schemas.ts, `AddressString`).
 */
export const ADDRESS_PATTERN = `^(?:${[SYSTEM_RE, ESCROW_RE, KIND_RE].map((re) => re.source.slice(1, -1)).join('|')})$`;

export function isAddress(address: unknown): address is string {
  return typeof address === 'string' && address.length <= ADDRESS_MAX_LENGTH && addressKind(address) !== null;
}

const KEY_DERIVED_RE = /^chain:[0-9a-f]{15}\.human$/;

/**
 * Whether the address has the key-derived form of decisions.md §3. Such an address belongs to the
 * one key whose hash it is, so nothing may bind another key to it, and coins sent to it are
 * always reachable by that key.
 */
export function isKeyDerivedAddress(address: string): boolean {
  return KEY_DERIVED_RE.test(address);
}

export function isSystemAddress(address: string): boolean {
  return SYSTEM_RE.test(address);
}
