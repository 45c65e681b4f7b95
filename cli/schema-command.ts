import { configFileSchema } from '../kernel/config/file-schema.js';

/** TypeBox schemas are JSON Schema already: the schema of a config file, for editors and operators. */
export function printConfigSchema(): void {
  process.stdout.write(JSON.stringify(configFileSchema(), null, 2) + '\n');
}
