import type { TSchema } from '@sinclair/typebox';

/**
 * Declared schemas as readers outside the process see them. TypeBox schemas are JSON Schema
 * except for the kinds JSON has no type for: a bigint (an amount, a stake) travels as a JSON
 * integer (`x-bigint` marks it; a store's `record` encoding writes it as `{"$big":"<digits>"}`),
 * and bytes as lowercase hex. `wireSchema` gives the JSON Schema (2020-12) a client, the metadata
 * route and the OpenAPI document show; `typeText` the one-line type the README tables show.
 */
export function wireSchema(schema: TSchema): Record<string, unknown> {
  return convert(schema) as Record<string, unknown>;
}

/** A copy without TypeBox's symbol keys (Object.entries skips them); bigint bounds stay bigints, served as JSON integers. */
function convert(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convert);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (v !== undefined) out[k] = convert(v);
  if (out.type === 'bigint') {
    out.type = 'integer';
    out['x-bigint'] = true;
  } else if (out.type === 'Uint8Array') {
    out.type = 'string';
    out.contentEncoding = 'base16';
    delete out.minByteLength;
    delete out.maxByteLength;
  }
  return out;
}

/**
 * A short type for a table cell: `{text: string, height: integer, signer?: string}`, `bigint`,
 * `"a" | "b"`, `T[]`. A schema with a `title` is shown by its title (a record too long for a cell;
 * the metadata route has it whole).
 */
export function typeText(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  if (typeof s.title === 'string') return s.title;
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.anyOf)) return (s.anyOf as TSchema[]).map(typeText).join(' | ');
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, TSchema>;
      const required = new Set((s.required ?? []) as string[]);
      const names = Object.keys(props);
      if (names.length === 0) return s.patternProperties ? `Record<string, ${typeText(Object.values(s.patternProperties as Record<string, TSchema>)[0]!)}>` : '{}';
      return `{${names.map((n) => `${n}${required.has(n) ? '' : '?'}: ${typeText(props[n]!)}`).join(', ')}}`;
    }
    case 'array':
      return `${bracketed(typeText(s.items as TSchema))}[]`;
    case 'bigint':
      return 'bigint';
    case 'Uint8Array':
      return 'bytes';
    case 'null':
      return 'null';
    default:
      return typeof s.type === 'string' ? s.type : Array.isArray(s.type) ? (s.type as string[]).join(' | ') : 'unknown';
  }
}

function bracketed(t: string): string {
  return t.includes(' | ') ? `(${t})` : t;
}
