import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schemas a process serves in its API reference
 * (`GET /api/v1/openapi.json`, built from the TypeBox schemas its routes validate with:
 * kernel/node/openapi.ts). Only the keywords those documents use are read; an unknown one widens
 * the value rather than failing the run. Values are `FuzzJson`: JSON with bigint for integers past
 * 2^53 and `RawJson` for text JSON.stringify cannot write (numbers such as 1e400, duplicate keys).
 */

export type FuzzJson = null | boolean | number | bigint | string | RawJson | FuzzJson[] | { [k: string]: FuzzJson };

/** JSON text written as is: what no JavaScript value stringifies to. */
export class RawJson {
  constructor(readonly text: string) {}
}

export type JsonSchema = Readonly<Record<string, unknown>>;

/** Longest string generated from a schema without a pattern (a long string is a hostile case of its own). */
const MAX_PLAIN_STRING = 48;
/** Longest array generated for a schema without `maxItems`. */
const MAX_ITEMS = 4;

/** Values the schema accepts (as far as its keywords say). */
export function valueOf(schema: JsonSchema, depth = 0): fc.Arbitrary<FuzzJson> {
  if ('const' in schema) return fc.constant(schema.const as FuzzJson);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as FuzzJson[]));
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(options) && options.length > 0) return fc.oneof(...options.map((s) => valueOf(s, depth + 1)));
  const type = Array.isArray(schema.type) ? (schema.type[0] as string) : (schema.type as string | undefined);
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return integerOf(schema);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, ...bounds(schema) });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items as JsonSchema | undefined) ?? {};
      const minLength = num(schema.minItems) ?? 0;
      const maxLength = Math.max(minLength, Math.min(num(schema.maxItems) ?? MAX_ITEMS, MAX_ITEMS));
      return fc.array(valueOf(items, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return objectOf(schema, depth);
    default:
      return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 }).map((v) => v as FuzzJson);
  }
}

function num(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

function bounds(schema: JsonSchema): { min?: number; max?: number } {
  const min = num(schema.minimum);
  const max = num(schema.maximum);
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

function stringOf(schema: JsonSchema): fc.Arbitrary<FuzzJson> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = num(schema.maxLength);
  if (typeof schema.pattern === 'string') {
    let re: RegExp | undefined;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch {
      re = undefined;
    }
    if (re !== undefined) {
      // stringMatching honours the pattern only: lengths outside the schema's are kept out here.
      return fc.stringMatching(re, { size: 'small' }).filter((s) => s.length >= minLength && (maxLength === undefined || s.length <= maxLength));
    }
  }
  const cap = Math.max(minLength, Math.min(maxLength ?? MAX_PLAIN_STRING, MAX_PLAIN_STRING));
  return fc.string({ minLength, maxLength: cap, unit: 'grapheme' });
}

function integerOf(schema: JsonSchema): fc.Arbitrary<FuzzJson> {
  // Bounds past 2^53 (ucoin amounts, x-bigint) arrive from the document as rounded doubles.
  const min = typeof schema.minimum === 'number' ? BigInt(Math.ceil(schema.minimum)) : -(2n ** 64n);
  const max = typeof schema.maximum === 'number' ? BigInt(Math.floor(schema.maximum)) : 2n ** 64n;
  if (min > max) return fc.constant(Number(min));
  const small = fc.bigInt({ min: min > -1000n ? min : -1000n, max: max < 1000n ? max : 1000n }).filter((v) => v >= min && v <= max);
  const wide = fc.bigInt({ min, max });
  return fc.oneof(small, wide, fc.constantFrom(min, max)).map((v) => (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v));
}

function objectOf(schema: JsonSchema, depth: number): fc.Arbitrary<FuzzJson> {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<FuzzJson>> = {};
  for (const [k, s] of Object.entries(props)) model[k] = valueOf(s, depth + 1);
  const record = fc.record(model, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
  const patterned = schema.patternProperties as Record<string, JsonSchema> | undefined;
  if (patterned === undefined || Object.keys(props).length > 0) return record.map((r) => r as FuzzJson);
  const [valueSchema] = Object.values(patterned);
  return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), valueOf(valueSchema ?? {}, depth + 1), { maxKeys: 3 }).map((r) => r as FuzzJson);
}

/** JSON text of a fuzz value: bigints as their digits, raw pieces as written. */
export function jsonText(v: FuzzJson): string {
  if (v instanceof RawJson) return v.text;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

/** A value as one query or path parameter's text. */
export function paramText(v: FuzzJson): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return jsonText(v);
}

/**
 * Values no schema asks for: the wrong type, numbers JSON can carry but no integer type can
 * (1e400, -0, 2^64, fractions), strings that are long, control characters, lone surrogates,
 * direction overrides, and nesting deeper than any parser's recursion would like.
 */
export const hostileValue: fc.Arbitrary<FuzzJson> = fc.oneof(
  fc.constantFrom<FuzzJson>(null, true, false, 0, -1, 0.5, -0, 1e308, Number.MAX_SAFE_INTEGER + 2, [], {}, '', ' ', '0', '-1', 'null', 'true', '0x', '__proto__'),
  fc.constantFrom('1e400', '-1e400', '1e-400', '18446744073709551617', '-9223372036854775809', '1.0', '1E2', '0.0000001', '1' + '0'.repeat(400)).map((t) => new RawJson(t)),
  fc.constantFrom('\u0000', '\ud800', '\udfff', 'a\ud83d', '\u202e\u0041', '\ufeff', 'ﬀ', 'İ', '𝟘', '\u{1F4A9}'.repeat(50), '%00', '%zz', '../../peers', '<script>', "'; DROP", '\\', '"\\"').map((s) => s as FuzzJson),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.bigInt({ min: -(2n ** 256n), max: 2n ** 256n }),
  fc.integer({ min: 50, max: 20_000 }).map((n) => new RawJson('['.repeat(n) + ']'.repeat(n))),
  fc.integer({ min: 50, max: 20_000 }).map((n) => new RawJson('{"a":'.repeat(n) + '1' + '}'.repeat(n))),
);
