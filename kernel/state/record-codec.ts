/**
 * JSON for state records that keeps bigints exact: a bigint is stored as {"$big":"<digits>"}.
 * Objects are written with sorted keys so equal records are equal bytes on every node.
 */
import { sortedKeys } from '../codec/sorted-keys.js';
import { utf8Bytes } from '../codec/utf8.js';

export interface RecordCodec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

const decoder = new TextDecoder();

function toStorable(value: unknown): unknown {
  if (typeof value === 'bigint') return { $big: value.toString(10) };
  if (Array.isArray(value)) return value.map(toStorable);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of sortedKeys(value)) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = toStorable(v);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new TypeError('state records hold integers only (no floating point in consensus state)');
  }
  return value;
}

function fromStorable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromStorable);
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length === 1 && keys[0] === '$big' && typeof obj.$big === 'string') return BigInt(obj.$big);
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k] = fromStorable(obj[k]);
    return out;
  }
  return value;
}

export function jsonRecord<T>(): RecordCodec<T> {
  return {
    encode: (value: T) => utf8Bytes(JSON.stringify(toStorable(value))),
    decode: (bytes: Uint8Array) => fromStorable(JSON.parse(decoder.decode(bytes))) as T,
  };
}

export const bigintCodec: RecordCodec<bigint> = {
  encode: (v) => utf8Bytes(v.toString(10)),
  decode: (b) => BigInt(decoder.decode(b)),
};
