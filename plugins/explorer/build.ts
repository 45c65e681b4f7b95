import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_BUNDLE } from '../../sdk/build/browser-bundle.js';

/**
 * `npm run build:web`, second step: the explorer's page (decisions.md §88) into
 * `dist/plugins/explorer/static/`: the app bundled by esbuild with preact, htm and uPlot taken
 * from node_modules (no CDN, nothing built committed), its HTML and CSS, and uPlot's stylesheet.
 * The browser crypto module is not bundled in: the page loads the one the gateway serves.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..');
const app = join(root, 'plugins', 'explorer', 'app');
const out = join(here, 'static');

mkdirSync(out, { recursive: true });
const result = await build({
  ...BROWSER_BUNDLE,
  absWorkingDir: root,
  entryPoints: [join(app, 'main.ts')],
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
copyFileSync(join(app, 'index.html'), join(out, 'index.html'));
copyFileSync(join(app, 'app.css'), join(out, 'app.css'));
copyFileSync(join(root, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'), join(out, 'uplot.css'));
const bytes = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
process.stdout.write(`explorer: ${join(out, 'app.js')} (${bytes} bytes minified)\n`);
