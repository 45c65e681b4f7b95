import { type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

/**
 * TypeBox schemas with the message a refused value gets. `withRefusal(schema, text)` sets it where
 * TypeBox's own ("Expected string to match '^(?:chain…'") would tell a client nothing; it sits
 * under a symbol key, which TypeBox carries through `Type.Optional` and its clones and which JSON
 * Schema output never shows. `firstRefusal` is the one check routes (kernel/node/request-schema.ts)
 * and clients (the assistant tool server's arguments) run, so both answer the same words.
 */
const REFUSAL = Symbol.for('pq-chain.refusal');

type Refusal = (value: unknown) => string;

/** The schema, whose refused values are answered with `text(value)`. */
export function withRefusal<T extends TSchema>(schema: T, text: Refusal): T {
  (schema as unknown as Record<symbol, Refusal>)[REFUSAL] = text;
  return schema;
}

/** The schema's own refusal text for a value it refused (`withRefusal`), or undefined when it has none. */
export function ownRefusal(schema: TSchema, value: unknown): string | undefined {
  const own = (schema as unknown as Record<symbol, Refusal | undefined>)[REFUSAL];
  return own ? own(value) : undefined;
}

/** One refusal: the field (a dotted path, `value` for the whole) and why. */
export interface SchemaRefusal {
  readonly name: string;
  readonly message: string;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkOf(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (c === undefined) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c;
}

/**
 * A schema error in the words of the schema that refused (`withRefusal`), or undefined where it has
 * none. A missing field is refused as missing (the checker's "Expected required property"), not in
 * the words its own refusal gives a wrong value.
 */
export function refusalWords(error: { readonly schema: TSchema; readonly value: unknown }): string | undefined {
  return error.value === undefined ? undefined : ownRefusal(error.schema, error.value);
}

/** The first reason `schema` refuses `value`, or undefined when it accepts it. */
export function firstRefusal(schema: TSchema, value: unknown): SchemaRefusal | undefined {
  const check = checkOf(schema);
  if (check.Check(value)) return undefined;
  const first = check.Errors(value).First();
  if (first === undefined) return { name: 'value', message: 'refused' };
  const name = first.path.replace(/^\//, '').replace(/\//g, '.') || 'value';
  return { name, message: refusalWords(first) ?? `${first.message}${first.value === undefined ? '' : `, got ${JSON.stringify(first.value)?.slice(0, 80)}`}` };
}
