import { ConfigSchema } from '../kernel/config/schema.js';

/** TypeBox schemas are JSON Schema already: print it for editors and operators. */
export function printConfigSchema(): void {
  process.stdout.write(JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...ConfigSchema }, null, 2) + '\n');
}
