import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GeneratorKind } from './token-params.js';

/** Which shipped template each kind is generated from (plugins/contracts/templates). */
export const KIND_TEMPLATES: Readonly<Record<GeneratorKind, { readonly template: string; readonly sourcePath: string }>> = {
  token: { template: 'fungible-token', sourcePath: 'plugins/contracts/templates/token/assembly/index.ts' },
};

export interface TemplateSource {
  readonly template: string;
  readonly source_path: string;
  readonly source: string;
}

/** Written by `npm run build` (build-assets.ts) beside this module's compiled file. */
export const TEMPLATE_SOURCES_FILE = fileURLToPath(new URL('../assets/template-sources.json', import.meta.url));

/** The AssemblyScript sources of the kinds' templates, read from the repository at build time. */
export function collectTemplateSources(repoRoot: string): Record<string, TemplateSource> {
  const out: Record<string, TemplateSource> = {};
  for (const [kind, t] of Object.entries(KIND_TEMPLATES)) out[kind] = { template: t.template, source_path: t.sourcePath, source: readFileSync(`${repoRoot}/${t.sourcePath}`, 'utf8') };
  return out;
}

/** The built sources; undefined when the build did not write them (generate then answers 503). */
export function loadTemplateSources(file = TEMPLATE_SOURCES_FILE): Readonly<Record<string, TemplateSource>> | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, TemplateSource>;
}
