import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { notFound } from '../errors.js';
import { reply } from '../rpc/index.js';
import { defineRoute } from '../host/declared-route.js';
import type { RouteTable } from '../host/route-table.js';

/**
 * Serving the API reference (decisions.md §87): `GET /api/v1/openapi.json`, the document of the
 * routes the process serves now, and `/docs`, a Swagger UI viewer of it whose files all come from
 * this origin (swagger-ui-dist, read from node_modules; no CDN, no validator badge). The viewer's
 * pages are routes of the table marked `listed: false`: pages are not part of the API.
 */

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';

export const OpenApiDocumentSchema = Type.Object(
  {
    openapi: Type.Literal('3.1.0'),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    tags: Type.Array(Type.Object({ name: Type.String() })),
    paths: Type.Record(Type.String(), Type.Record(Type.String(), Type.Object({ operationId: Type.String(), tags: Type.Array(Type.String()) }))),
    components: Type.Object({ schemas: Type.Record(Type.String(), Type.Unknown()) }),
  },
  { description: 'an OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)' },
);

export const openApiRoute = defineRoute({
  method: 'GET',
  path: OPENAPI_PATH,
  summary: "this process's API reference: an OpenAPI 3.1 document of every REST route it serves now (decisions.md §87)",
  responses: { 200: OpenApiDocumentSchema },
});

/** The viewer's files: the names the page asks for, each from swagger-ui-dist or written here. */
const VIEWER_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Every operation's method and path, written into the page itself: readable without a click and
 * without scripts (a terminal browser, a test reading the HTML), whatever Swagger UI renders
 * below it (5.35 renders the first dozen or so operations of a 150-route document and the rest
 * only as the reader scrolls, so a page that has just loaded does not yet show them all).
 */
function operationList(doc: Readonly<Record<string, unknown>>): string {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, { summary?: unknown }>>;
  const rows: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const summary = typeof op.summary === 'string' ? ` — ${escapeHtml(op.summary)}` : '';
      rows.push(`<li><code>${method.toUpperCase()}</code> <code>${escapeHtml(path)}</code>${summary}</li>`);
    }
  }
  return `<h1>API reference</h1>\n<p><a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI 3.1)</p>\n<ul data-operations>\n${rows.join('\n')}\n</ul>`;
}

function page(doc: Readonly<Record<string, unknown>>): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>API reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
<section class="swagger-ui">
${operationList(doc)}
</section>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;
}

// docExpansion 'list': every tag open, so each operation's method and path shows without a click;
// validatorUrl null: Swagger UI would otherwise fetch a badge from validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', docExpansion: 'list', deepLinking: true, validatorUrl: null, defaultModelsExpandDepth: 0, presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout' });\n`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

let distDir: string | undefined;
const cache = new Map<string, Buffer>();

function viewerFile(name: string): Buffer {
  let bytes = cache.get(name);
  if (!bytes) {
    distDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    bytes = readFileSync(join(distDir, name));
    cache.set(name, bytes);
  }
  return bytes;
}

/** Adds the document route (owned by whoever runs `routes.withOwner`) and the viewer's pages to a table. */
export function registerApiReference(routes: RouteTable, document: () => Record<string, unknown>): void {
  // The kernel's route in every process that serves one: tagged `kernel` in each document (decisions.md §87).
  routes.serve(openApiRoute, () => document(), { tag: 'kernel' });
  const asset = (body: string | Buffer, contentType: string) => reply(200, body, { contentType, headers: { 'content-security-policy': CSP, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } });
  routes.get(DOCS_PATH, () => asset(page(document()), 'text/html; charset=utf-8'), { listed: false });
  routes.get(
    `${DOCS_PATH}/:file`,
    (req) => {
      const name = req.params.file ?? '';
      if (name === 'init.js') return asset(INIT, 'text/javascript; charset=utf-8');
      const type = VIEWER_FILES[name];
      if (type === undefined) throw notFound(`no file ${name} in ${DOCS_PATH}`);
      return asset(viewerFile(name), type);
    },
    { listed: false },
  );
}
