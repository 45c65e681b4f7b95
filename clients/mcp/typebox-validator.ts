import { Kind, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { fromJsonSchema, type JsonSchemaType, type JsonSchemaValidator, type jsonSchemaValidator, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { firstRefusal } from '../../kernel/sdk.js';

/**
 * TypeBox schemas plugged into the MCP SDK through `fromJsonSchema` (v2): the SDK advertises the
 * JSON Schema in `tools/list` and asks this validator to check a call's arguments. The check is
 * TypeBox's own (`firstRefusal`, what the routes run), so an argument is refused in the same words
 * a route would use, naming it: `limit: Expected integer to be less or equal to 200, got 201`. The
 * SDK answers a refused call with `isError: true` and that text, before the tool runs: no request
 * is made, and it is never a JSON-RPC error.
 */
class TypeBoxValidator implements jsonSchemaValidator {
  /** The TypeBox schema each advertised JSON Schema was made from. */
  private readonly sources = new WeakMap<object, TObject>();

  advertise(schema: TObject): JsonSchemaType {
    const json = toJsonSchema(schema) as JsonSchemaType;
    this.sources.set(json, schema);
    return json;
  }

  getValidator<T>(json: JsonSchemaType): JsonSchemaValidator<T> {
    const schema = this.sources.get(json);
    if (schema === undefined) throw new Error('a tool schema must be advertised through inputSchemaOf');
    return (input: unknown) => {
      const args = input ?? {};
      const refused = firstRefusal(schema, args);
      if (refused) return { valid: false, data: undefined, errorMessage: `${refused.name}: ${refused.message}` };
      // Defaults as the schema declares them (`limit` 20, `value` 0), on a copy of the arguments.
      return { valid: true, data: Value.Default(schema, Value.Clone(args)) as T, errorMessage: undefined };
    };
  }
}

const validator = new TypeBoxValidator();

/** A tool's `inputSchema` for the SDK's `registerTool`. */
export function inputSchemaOf(schema: TObject): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> {
  return fromJsonSchema<Record<string, unknown>>(validator.advertise(schema), validator);
}

/**
 * The JSON Schema a client is shown: TypeBox's, with keywords only routes read removed (`x-cap`,
 * already a `maximum` in a tool's `limit`) and a union of string literals written as the `enum`
 * clients know (`status`: active, passed, rejected). Validation still runs on the TypeBox original.
 */
export function toJsonSchema(schema: TSchema): unknown {
  const literals = (schema as { anyOf?: TSchema[] }).anyOf;
  if (schema[Kind] === 'Union' && literals?.every((s) => s[Kind] === 'Literal' && typeof s.const === 'string')) {
    const { anyOf: _a, ...rest } = schema as unknown as Record<string, unknown>;
    return { ...plain(rest), type: 'string', enum: literals.map((s) => s.const as string) };
  }
  return plain(schema as unknown as Record<string, unknown>);
}

function plain(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith('x-')) continue;
    if (Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'object' && x !== null ? toJsonSchema(x as TSchema) : x));
    else if (typeof v === 'object' && v !== null) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, toJsonSchema(s as TSchema)])) : k === 'default' || k === 'const' ? v : toJsonSchema(v as TSchema);
    else out[k] = v;
  }
  return out;
}
