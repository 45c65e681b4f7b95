import { Kind, OptionalKind, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../errors.js';
import { firstRefusal } from '../codec/schema-check.js';

/**
 * A read route's path parameters and query, checked against a TypeBox schema the route exports, so
 * that every client that asks the same question (the assistant tool server's input schemas, the
 * declared routes and OpenAPI document of the shape work) reads the same bounds from one constant
 * instead of a copy. Refusals answer 400 naming the parameter, in the schema's own words where it
 * has them (`withRefusal`, kernel/codec/schema-check.ts).
 *
 * `'x-cap': n` on an integer (decisions.md §20's `limit`): a larger value is capped at n, not
 * refused (part 2, "Pagination caps": `/transactions?limit=999` answers 200 rows). A client that
 * wants a hard bound instead (a tool's `limit` 1–200) reads the cap as its `maximum`.
 */
export const CAP_KEYWORD = 'x-cap';

function isKind(schema: TSchema, kind: string): boolean {
  if (schema[Kind] === kind) return true;
  const any = (schema as { anyOf?: TSchema[] }).anyOf;
  return Array.isArray(any) && any.some((s) => isKind(s, kind));
}

/** A text from the URL as the property's schema reads it: digits as an integer, `true`/`false` as a boolean, else the text. */
function fromText(schema: TSchema, raw: string): unknown {
  if ((isKind(schema, 'Integer') || isKind(schema, 'Number')) && /^-?\d{1,15}$/.test(raw)) return Number(raw);
  if (isKind(schema, 'Integer') && /^\d{16,}$/.test(raw)) return Number.MAX_SAFE_INTEGER + 1;
  if (isKind(schema, 'Boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function readObject<T extends TObject>(schema: T, where: string, get: (name: string) => string | undefined): Static<T> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    const raw = get(name);
    // An empty value is an absent one, as clients write `?status=` for "any".
    if (raw === undefined || (raw === '' && prop[OptionalKind] === 'Optional')) continue;
    out[name] = fromText(prop, raw);
  }
  const value = Value.Default(schema, out) as Record<string, unknown>;
  const refused = firstRefusal(schema, value);
  if (refused) throw badRequest(`${where} ${refused.name}: ${refused.message}`);
  for (const [name, prop] of Object.entries(schema.properties)) {
    const cap = (prop as Record<string, unknown>)[CAP_KEYWORD];
    const v = value[name];
    if (typeof cap === 'number' && typeof v === 'number' && v > cap) value[name] = cap;
  }
  return value as Static<T>;
}

/** The route's query, read against its schema (defaults filled, caps applied); 400 naming the first refused parameter. */
export function readQuery<T extends TObject>(schema: T, query: URLSearchParams): Static<T> {
  return readObject(schema, 'query parameter', (name) => query.get(name) ?? undefined);
}

/** The route's path parameters, read against its schema; 400 naming the first refused one. */
export function readParams<T extends TObject>(schema: T, params: Readonly<Record<string, string | undefined>>): Static<T> {
  return readObject(schema, 'path parameter', (name) => params[name]);
}
