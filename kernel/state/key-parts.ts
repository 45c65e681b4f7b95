import { isAddress } from '../crypto/address.js';

/**
 * The typed segments of a declared store's key (`delegation/<validator>/<delegator>`): each
 * knows how its value is written into the key, how to read it back, and which segments it
 * accepts, so a key is built, parsed and checked from the declaration alone. Segments are
 * joined with `/`, which no part may contain; fixed segments are written as plain strings in the
 * declaration (`['reward', keyPart.address('staker'), keyPart.integer('height')]`).
 */
export interface KeyPart<T> {
  /** What the part is called in the layout (`<validator>`), the metadata and error messages. */
  readonly name: string;
  readonly kind: 'address' | 'integer' | 'decimal' | 'hash' | 'hex' | 'string';
  /** The segment for a value; throws naming the part for a value it cannot hold. */
  encode(value: T): string;
  decode(segment: string): T;
  /** Whether a key segment is one this part writes. */
  accepts(segment: string): boolean;
  /** Shown in the metadata route: what the segment holds. */
  readonly description: string;
}

/** A declaration's segment: a fixed text, or a typed part. */
export type KeySegment = string | KeyPart<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each part checks its own type

/** The values a key takes, in order, from its declaration (fixed segments take none). */
export type KeyValues<S extends readonly KeySegment[]> = S extends readonly [infer H, ...infer R extends readonly KeySegment[]]
  ? H extends KeyPart<infer T>
    ? [T, ...KeyValues<R>]
    : KeyValues<R>
  : [];

/** A leading run of a key's values: the prefix a scan is bounded to. */
export type KeyPrefix<V extends readonly unknown[]> = V extends readonly [...infer Head, unknown] ? KeyPrefix<Head> | V : V;

const FIXED_SEGMENT = /^[a-z0-9_.:-]{1,64}$/;
const PART_NAME = /^[a-z][a-z0-9_]{0,47}$/;

export function assertFixedSegment(segment: string, where: string): void {
  if (!FIXED_SEGMENT.test(segment)) throw new Error(`${where}: fixed key segment "${segment}" must be 1-64 of a-z 0-9 _ . : -`);
}

function part<T>(name: string, kind: KeyPart<T>['kind'], description: string, accepts: (s: string) => boolean, toSegment: (v: T) => string | undefined, decode: (s: string) => T): KeyPart<T> {
  if (!PART_NAME.test(name)) throw new Error(`key part "${name}": names are lower_snake_case`);
  return Object.freeze({
    name,
    kind,
    description,
    accepts,
    decode,
    encode(value: T): string {
      const s = toSegment(value);
      if (s === undefined || !accepts(s)) throw new Error(`key part <${name}>: ${JSON.stringify(typeof value === 'bigint' ? value.toString() : value)} is not ${description}`);
      return s;
    },
  });
}

const HASH_RE = /^0x[0-9a-f]{64}$/;
const HEX_RE = /^[0-9a-f]+$/;

/** The kinds of key part a store may declare. */
export const keyPart = {
  /** A chain address (decisions.md §3; `chain:<label>.<kind>`, system and escrow addresses). */
  address(name: string): KeyPart<string> {
    return part(name, 'address', 'a chain address', isAddress, (v) => (typeof v === 'string' ? v : undefined), (s) => s);
  },
  /**
   * A non-negative integer, zero-padded to `width` digits (12 by default) so that keys sort by
   * number: heights, ids, sequence numbers.
   */
  integer(name: string, options: { readonly width?: number } = {}): KeyPart<number> {
    const width = options.width ?? 12;
    if (!Number.isInteger(width) || width < 1 || width > 16) throw new Error(`key part "${name}": width must be 1 to 16 digits`);
    const re = new RegExp(`^[0-9]{${width}}$`);
    return part(
      name,
      'integer',
      `an integer from 0 to ${'9'.repeat(width)}, written in ${width} digits`,
      (s) => re.test(s) && Number.isSafeInteger(Number(s)),
      (v) => (Number.isSafeInteger(v) && v >= 0 ? String(v).padStart(width, '0') : undefined),
      (s) => Number(s),
    );
  },
  /**
   * A non-negative integer in plain decimal, no padding: such keys sort as text (10 before 9), so
   * use it only where a plugin wrote keys that way before (its bytes must not change), never in a
   * new layout that is scanned in order.
   */
  decimal(name: string): KeyPart<number> {
    return part(
      name,
      'decimal',
      'a non-negative integer in plain decimal',
      (s) => /^(0|[1-9][0-9]{0,15})$/.test(s) && Number.isSafeInteger(Number(s)),
      (v) => (Number.isSafeInteger(v) && v >= 0 ? String(v) : undefined),
      (s) => Number(s),
    );
  },
  /** A 32-byte hash as `0x` and 64 lowercase hex digits (a transaction hash, a code hash). */
  hash(name: string): KeyPart<string> {
    return part(name, 'hash', '0x and 64 lowercase hex digits', (s) => HASH_RE.test(s), (v) => (typeof v === 'string' ? v : undefined), (s) => s);
  },
  /**
   * Lowercase hex digits, `length` of them when given (a key id). `empty: true` admits no digits
   * at all (the segment after the last `/` is then empty): for bytes a plugin does not choose, as
   * a contract's own storage key, which may be zero bytes long.
   */
  hex(name: string, options: { readonly length?: number; readonly empty?: boolean } = {}): KeyPart<string> {
    const length = options.length;
    const empty = options.empty === true && length === undefined;
    const what = length === undefined ? `lowercase hex digits${empty ? ' (or none)' : ''}` : `${length} lowercase hex digits`;
    return part(name, 'hex', what, (s) => (empty && s === '') || (HEX_RE.test(s) && (length === undefined || s.length === length)), (v) => (typeof v === 'string' ? v : undefined), (s) => s);
  },
  /**
   * Any other text: 1 to `maxLength` (128) characters, none of them `/`; `pattern`, when given,
   * is what every value must match (a status name, a label).
   */
  string(name: string, options: { readonly maxLength?: number; readonly pattern?: RegExp } = {}): KeyPart<string> {
    const max = options.maxLength ?? 128;
    const pattern = options.pattern;
    // A global or sticky expression tests from where its last match ended: a key part's verdict
    // would depend on the keys checked before it (the plugin boundary remembers accepted keys).
    if (pattern !== undefined && (pattern.global || pattern.sticky)) throw new Error(`key part ${name}: its pattern ${String(pattern)} must not carry the g or y flag`);
    const what = `text of 1-${max} characters without "/"${pattern ? ` matching ${pattern.source}` : ''}`;
    return part(name, 'string', what, (s) => s.length >= 1 && s.length <= max && !s.includes('/') && (pattern === undefined || pattern.test(s)), (v) => (typeof v === 'string' ? v : undefined), (s) => s);
  },
} as const;
