/**
 * JSON for the wire and for hashing. Amounts are bigint inside the node and plain JSON integers on
 * the wire; JSON.stringify cannot emit a bigint as a number, so this encoder does. `canonical`
 * sorts object keys and drops `undefined`, giving the one byte string a value hashes to.
 */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue | undefined };

export function stringify(value: unknown, canonical = false): string {
  return encode(value, canonical);
}

export function canonicalJson(value: unknown): string {
  return encode(value, true);
}

function encode(value: unknown, canonical: boolean): string {
  switch (typeof value) {
    case 'bigint':
      return value.toString(10);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('non-finite number cannot be encoded as JSON');
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return '[' + value.map((v) => (v === undefined ? 'null' : encode(v, canonical))).join(',') + ']';
      if (value instanceof Uint8Array) throw new TypeError('encode bytes as hex before JSON');
      const withToJson = value as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') return encode(withToJson.toJSON(), canonical);
      const keys = Object.keys(value);
      if (canonical) keys.sort();
      const parts: string[] = [];
      for (const k of keys) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined || typeof v === 'function') continue;
        parts.push(JSON.stringify(k) + ':' + encode(v, canonical));
      }
      return '{' + parts.join(',') + '}';
    }
    default:
      throw new TypeError(`cannot encode ${typeof value} as JSON`);
  }
}
