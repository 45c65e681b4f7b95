import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, notFound, reply, unavailable } from '../../kernel/sdk.js';
import type { GatewayServices } from '../gateway/public.js';

/**
 * The block explorer (decisions.md §88): one static page at `/explorer/` (`/` redirects there)
 * that reads the gateway's REST API and `/ws` from its own origin and checks account reads with
 * the browser crypto module (§85–86). A service plugin of the gateway process: it adds routes and
 * serves files `npm run build` made (plugins/explorer/build.ts: the app bundled with preact, htm
 * and uPlot from node_modules); the page itself decides nothing.
 */
export const EXPLORER_PATH = '/explorer/';

/** `static/` beside this file in `dist/plugins/explorer/`. */
const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'static');

const ASSETS: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'uplot.css': 'text/css; charset=utf-8',
};

/**
 * Everything the page loads is of this origin (§88: no request to another origin), and the
 * browser enforces it. `connect-src 'self'` covers same-origin `ws:`/`wss:` (CSP level 3).
 */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function loadAssets(dir: string): Map<string, Uint8Array> | undefined {
  try {
    return new Map(Object.keys(ASSETS).map((name) => [name, new Uint8Array(readFileSync(join(dir, name)))]));
  } catch {
    return undefined;
  }
}

export const explorerPlugin = definePlugin<Record<string, unknown>, GatewayServices>({
  name: 'explorer',
  kind: 'service',
  description: 'block explorer page at /explorer/, live over /ws, with verified account reads',
  register(api) {
    const assets = loadAssets(STATIC_DIR);
    if (!assets) api.log.warn({ dir: STATIC_DIR }, 'the explorer is not built (npm run build): /explorer/ answers 503');
    const serve = (name: string) => {
      if (!assets) throw unavailable('the explorer is not built', 'run npm run build on the gateway host');
      const bytes = assets.get(name);
      const type = ASSETS[name];
      if (!bytes || !type) throw notFound(`no explorer file ${name}`);
      // The page changes with every build of the gateway; its files are small: revalidate each time.
      return reply(200, bytes, { contentType: type, headers: { 'content-security-policy': CSP, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } });
    };
    api.hooks.routes.tap(api.name, (routes) => {
      routes.withOwner(api.name, () => {
        routes.get('/', () => reply(302, `see ${EXPLORER_PATH}`, { contentType: 'text/plain; charset=utf-8', headers: { location: EXPLORER_PATH } }));
        // The router ignores a trailing slash: `/explorer` and `/explorer/` are the page.
        routes.get('/explorer', () => serve('index.html'));
        routes.get('/explorer/:file', (req) => serve(req.params.file ?? ''));
      });
    });
  },
});
