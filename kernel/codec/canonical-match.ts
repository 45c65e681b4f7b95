import { canonicalJson } from './json.js';
import { sortedKeys } from './sorted-keys.js';

/**
 * Whether `text` is exactly `canonicalJson(value)`, found without building that string.
 *
 * A transaction arrives as text (an HTTP body, a peer's relay) and its id is the SHA3-256 of its
 * canonical JSON. Peers relay exactly that text, and a client that computes the id sends it
 * too; re-serialising the 10 KB body only to find the same bytes was one sixth of everything
 * a validator allocated under load (sampling heap profile, 230 tx/s). This walks `value` in
 * canonical order and compares each piece where it stands in the text: a long hex string is
 * neither copied nor escaped again.
 *
 * The answer is always the same as `canonicalJson(value) === text` (the property test in
 * canonical-match.test.ts pins it): anything this walker does not mirror exactly (a value
 * `canonicalJson` would reject, `toJSON`, bytes) is decided by that comparison itself.
 */
export function isCanonicalJsonOf(text: string, value: unknown, longStrings?: LongStringInText[]): boolean {
  try {
    return matchAt(text, 0, value, longStrings) === text.length;
  } catch (e) {
    if (e !== UNUSUAL) throw e;
    if (longStrings) longStrings.length = 0;
    return canonicalJson(value) === text;
  }
}

/**
 * An object property whose string value stands in the text unescaped, at [start, end): the
 * caller may replace the value with `text.substring(start, end)`, an equal string that V8 keeps
 * as a slice of the text instead of a copy. Listed only for values of LONG_STRING characters or
 * more, and only meaningful when the match succeeded.
 */
export interface LongStringInText {
  readonly holder: Record<string, unknown>;
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

const LONG_STRING = 64;

/** Thrown inside the walk for values it leaves to the full comparison. */
const UNUSUAL = Symbol('unusual value');

/** Printable ASCII without `"` and `\`: the strings JSON.stringify writes between quotes unchanged. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

const QUOTE = 34;

/**
 * Whether the text holds `s` at `at`. A substring of 13 characters or more is a slice (no copy)
 * and `===` compares flat strings with memcmp: 0.5 µs for a 6.6 KB signature, against 39 µs for
 * `startsWith`, which V8 runs a character at a time.
 */
function holds(text: string, at: number, s: string): boolean {
  return text.substring(at, at + s.length) === s;
}

/** The position after `s` if the text holds it at `at`, else -1. */
function piece(text: string, at: number, s: string): number {
  return at >= 0 && holds(text, at, s) ? at + s.length : -1;
}

function matchString(text: string, at: number, s: string): number {
  if (at < 0) return -1;
  if (!PLAIN.test(s)) return piece(text, at, JSON.stringify(s));
  if (text.charCodeAt(at) !== QUOTE || !holds(text, at + 1, s)) return -1;
  const end = at + 1 + s.length;
  return text.charCodeAt(end) === QUOTE ? end + 1 : -1;
}

/** Mirrors json.ts `encode(value, true)` piece by piece; -1 as soon as the text differs. */
function matchAt(text: string, at: number, value: unknown, longStrings?: LongStringInText[]): number {
  if (at < 0) return -1;
  switch (typeof value) {
    case 'string':
      return matchString(text, at, value);
    case 'number':
      if (!Number.isFinite(value)) throw UNUSUAL;
      return piece(text, at, JSON.stringify(value));
    case 'bigint':
      return piece(text, at, value.toString(10));
    case 'boolean':
      return piece(text, at, value ? 'true' : 'false');
    case 'object': {
      if (value === null) return piece(text, at, 'null');
      if (Array.isArray(value)) {
        let pos = piece(text, at, '[');
        for (let i = 0; i < value.length && pos >= 0; i++) {
          if (i > 0) pos = piece(text, pos, ',');
          const v: unknown = value[i];
          pos = v === undefined ? piece(text, pos, 'null') : matchAt(text, pos, v, longStrings);
        }
        return piece(text, pos, ']');
      }
      if (value instanceof Uint8Array || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw UNUSUAL;
      const o = value as Record<string, unknown>;
      const keys = sortedKeys(o);
      let pos = piece(text, at, '{');
      let first = true;
      for (const k of keys) {
        const v = o[k];
        if (v === undefined || typeof v === 'function') continue;
        if (!first) pos = piece(text, pos, ',');
        first = false;
        pos = piece(text, matchString(text, pos, k), ':');
        const start = pos;
        pos = matchAt(text, pos, v, longStrings);
        if (pos < 0) return -1;
        // Quotes plus exactly its own length: the string stands unescaped in the text.
        if (longStrings && typeof v === 'string' && v.length >= LONG_STRING && pos - start === v.length + 2) longStrings.push({ holder: o, key: k, start: start + 1, end: pos - 1 });
      }
      return piece(text, pos, '}');
    }
    default:
      throw UNUSUAL;
  }
}
