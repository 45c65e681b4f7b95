import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_CATALOGUE } from '../plugins/index.js';
import { gatewayPlugin } from '../plugins/gateway/index.js';
import { withBlock } from './helpers/plugin-readme.js';

/**
 * `npm run readme:tables`: rewrites the State layout and Events tables of every converted
 * plugin's README from its declarations (test/plugin-readmes.test.ts checks them). Prose around
 * the tables is left alone.
 */
for (const def of [...PLUGIN_CATALOGUE.values(), gatewayPlugin]) {
  if (def.stores === undefined) continue;
  const path = join(process.cwd(), 'plugins', def.name, 'README.md');
  const before = readFileSync(path, 'utf8');
  const after = withBlock(withBlock(before, def, 'state-layout'), def, 'events');
  if (after !== before) {
    writeFileSync(path, after);
    console.log(`plugins/${def.name}/README.md: tables rewritten`);
  }
}
