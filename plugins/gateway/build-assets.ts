import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectDocPassages } from './assistant/docs-passages.js';
import { buildDocsIndex, DOCS_INDEX_FILE } from './assistant/docs-search.js';
import { collectTemplateSources, TEMPLATE_SOURCES_FILE } from './generator/template-sources.js';

/**
 * `npm run build` step (build:gateway): what the gateway serves from files and must not read from
 * the repository at run time (a container has only dist/): the documentation assistant's search
 * index over every Markdown file, and the AssemblyScript sources of the templates `generate`
 * answers with. Run from dist/plugins/gateway/, so the repository root is three levels up.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));

const passages = collectDocPassages(root);
mkdirSync(dirname(DOCS_INDEX_FILE), { recursive: true });
writeFileSync(DOCS_INDEX_FILE, buildDocsIndex(passages));
writeFileSync(TEMPLATE_SOURCES_FILE, JSON.stringify(collectTemplateSources(root)));
console.log(`gateway assets: ${passages.length} documentation passages indexed, template sources written (${dirname(DOCS_INDEX_FILE)})`);
