import type { PluginDefinition } from '../../kernel/host/plugin.js';
import { typeText } from '../../kernel/host/schema-view.js';
import type { DeclaredIndex, DeclaredStore } from '../../kernel/state/declared-store.js';

/**
 * The plugin README template (docs/plugin-readme-template.md): its sections, in order, and the two
 * tables generated from a plugin's declarations, which sit between markers so that
 * test/plugin-readmes.test.ts can check them and `npm run readme:tables` can rewrite them.
 */
export const README_SECTIONS = ['Operations', 'Routes', 'Socket methods', 'State layout', 'Events', 'Parameters', 'Errors'] as const;

export type GeneratedBlock = 'state-layout' | 'events';

export const begin = (block: GeneratedBlock): string => `<!-- ${block}: generated from the declarations (npm run readme:tables); edit them, not this table -->`;
export const end = (block: GeneratedBlock): string => `<!-- /${block} -->`;

type Def = Pick<PluginDefinition<never, never>, 'name' | 'stores' | 'indexes' | 'events'>;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string): string => `\`${cell(text)}\``;

function storeRows(stores: readonly (DeclaredStore | DeclaredIndex)[]): string[] {
  return stores.map((s) => `| ${code(s.name)} | ${code(s.layout.text)} | ${code(typeText(s.value))}${s.record.encoding === 'record' ? '' : ` (${s.record.encoding})`} | ${cell(s.description)}${readAheadNote(s)} |`);
}

/** A store the kernel reads ahead by party says so, since each such key is one more read per transaction. */
function readAheadNote(s: DeclaredStore | DeclaredIndex): string {
  const parties = 'readAhead' in s ? s.readAhead : undefined;
  return parties === undefined ? '' : cell(`; read ahead with the accounts, keyed by the ${parties.join(' and ')} (StoreSpec.readAhead)`);
}

/** The State layout table: each store's key layout, value type and meaning; its index stores apart. */
export function stateLayoutTable(def: Def): string {
  const stores = def.stores ?? [];
  const lines: string[] = [];
  if (stores.length === 0) lines.push('No stores: the plugin keeps no state of its own.');
  else lines.push('| Store | Key (under `' + def.name + '/`) | Value | Meaning |', '|---|---|---|---|', ...storeRows(stores));
  const indexes = def.indexes ?? [];
  if (indexes.length > 0) lines.push('', '| Index (node-local) | Key | Value | Meaning |', '|---|---|---|---|', ...storeRows(indexes));
  return lines.join('\n');
}

/** The Events table: each event's type, data and whether the gateway pushes it to socket clients. */
export function eventsTable(def: Def): string {
  const events = def.events ?? [];
  if (events.length === 0) return 'No events.';
  return [
    '| Type | Data | Socket | Meaning |',
    '|---|---|---|---|',
    ...events.map((e) => `| ${code(e.type)} | ${e.data ? code(typeText(e.data)) : e.fields.map(code).join(', ')} | ${e.socket === true ? 'yes' : 'no'} | ${cell(e.description)} |`),
  ].join('\n');
}

export function generated(def: Def, block: GeneratedBlock): string {
  return block === 'state-layout' ? stateLayoutTable(def) : eventsTable(def);
}

/** The text between a block's markers, or undefined when the README has no such block. */
export function blockIn(readme: string, block: GeneratedBlock): string | undefined {
  const from = readme.indexOf(begin(block));
  const to = readme.indexOf(end(block));
  if (from < 0 || to < from) return undefined;
  return readme.slice(from + begin(block).length, to).trim();
}

/** The README with the block rewritten from the declarations (added under its section when missing). */
export function withBlock(readme: string, def: Def, block: GeneratedBlock): string {
  const body = `${begin(block)}\n${generated(def, block)}\n${end(block)}`;
  const from = readme.indexOf(begin(block));
  const to = readme.indexOf(end(block));
  if (from >= 0 && to > from) return readme.slice(0, from) + body + readme.slice(to + end(block).length);
  const heading = `## ${block === 'state-layout' ? 'State layout' : 'Events'}`;
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`the README has no "${heading}" section`);
  const after = at + heading.length + 2;
  return `${readme.slice(0, after)}\n${body}\n${readme.slice(after)}`;
}

/** The template's sections the README lacks or has out of order (`## <name>` headings). */
export function sectionProblems(readme: string): string[] {
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim());
  const problems: string[] = [];
  let last = -1;
  for (const s of README_SECTIONS) {
    const at = headings.indexOf(s);
    if (at < 0) problems.push(`no "## ${s}" section`);
    else if (at < last) problems.push(`"## ${s}" comes before a section the template puts ahead of it`);
    else last = at;
  }
  return problems;
}
