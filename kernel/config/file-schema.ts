import { ConfigSchema } from './schema.js';

type Json = Record<string, unknown>;

/**
 * The schema of one configuration file, as `chain config-schema` prints it (decisions.md §82: a
 * node home's `config/node.json` is "a config file of the `chain config-schema` schema"). A file
 * is one layer of five (built-in defaults, `configs/<network>.json`, `node.json`, the
 * environment, flags), so none of its sections' fields is required there: the merged
 * configuration is checked against `ConfigSchema` itself at start-up. What a list's entry needs (a
 * plugin's `name`) stays required: an entry is whole in the file that holds it.
 */
export function configFileSchema(): Json {
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...(sectionsOptional(JSON.parse(JSON.stringify(ConfigSchema)) as Json) as Json) };
}

function sectionsOptional(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(sectionsOptional);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'required') continue;
    // A list's entries keep their own schema whole.
    out[k] = k === 'items' ? v : k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, sectionsOptional(s)])) : sectionsOptional(v);
  }
  return out;
}
