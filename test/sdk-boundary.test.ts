import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { importsOf, typeScriptSources as sources } from './helpers/import-specifiers.js';

/**
 * The plugin SDK is the kernel's one public entry point: a plugin that imports any other module
 * of kernel/ would tie itself to code the kernel may change without notice. This reads every
 * source file under plugins/ (tests and test support included) and refuses such an import, and
 * any import of another plugin's files but its public one (`plugins/<name>/public.ts`).
 */
const ROOT = resolve('.');
const SDK = join(ROOT, 'kernel', 'sdk.ts');

test('plugins import the kernel only through kernel/sdk.ts', () => {
  const offences: string[] = [];
  const files = sources(join(ROOT, 'plugins'));
  assert.ok(files.length > 10, 'the plugin sources were found');
  for (const file of files) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      if (target.startsWith(join(ROOT, 'kernel') + '/') && target !== SDK) offences.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(offences, [], `import these through kernel/sdk.ts instead:\n${offences.join('\n')}`);
});

/** The one file of a plugin that other plugins may import: its methods declaration and the schemas it shares. */
export const PUBLIC_FILE = 'public.ts';

/**
 * Imports across plugins that predate the public-file rule, as `<importing plugin> -> <file>`, and
 * go when their plugins are converted (phase B of issue 30, docs/plugin-sdk.md "Converting a
 * plugin"). The test fails on any offence not listed here, and on a listed one that no longer
 * exists, so the list shrinks.
 */
const NOT_CONVERTED_YET: string[] = [];

/**
 * Where a plugin's file may import another plugin: only that plugin's public file, tests included
 * (a test that registers another plugin takes its definition from the catalogue:
 * test/helpers/catalogued-plugin.ts). The catalogue (plugins/index.ts) is no plugin and imports
 * every definition.
 */
export function crossPluginOffence(from: string, to: string): boolean {
  const [own, ...rest] = from.split('/');
  const [other, ...file] = to.split('/');
  if (rest.length === 0 || other === own || file.length === 0) return false;
  const target = file.join('/');
  return target !== PUBLIC_FILE;
}

test('a plugin imports another plugin only through its public file, its tests too', () => {
  const pluginsDir = join(ROOT, 'plugins');
  const offences: string[] = [];
  for (const file of sources(pluginsDir)) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = relative(pluginsDir, resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      if (target.startsWith('..')) continue;
      const from = relative(pluginsDir, file);
      if (crossPluginOffence(from, target)) offences.push(`${from} -> ${target}`);
    }
  }
  const pairOf = (o: string): string => o.replace(/^([^/]+)\/\S+ ->/, '$1 ->');
  const fresh = offences.filter((o) => !NOT_CONVERTED_YET.includes(pairOf(o)));
  assert.deepEqual(fresh, [], `import these through the other plugin's ${PUBLIC_FILE} (export what you need there):\n${fresh.join('\n')}`);
  const gone = NOT_CONVERTED_YET.filter((pair) => !offences.some((o) => pairOf(o) === pair));
  assert.deepEqual(gone, [], 'these imports are gone: take them off NOT_CONVERTED_YET');
});

test('the public-file rule: public.ts of another plugin, the own plugin and the catalogue pass; any other file of another plugin does not, from a test either', () => {
  assert.equal(crossPluginOffence('governance/tally.ts', 'staking/public.ts'), false);
  assert.equal(crossPluginOffence('governance/index.test.ts', 'staking/public.ts'), false);
  assert.equal(crossPluginOffence('governance/tally.ts', 'governance/store.ts'), false);
  assert.equal(crossPluginOffence('index.ts', 'staking/index.ts'), false);
  assert.equal(crossPluginOffence('governance/tally.ts', 'staking/index.ts'), true);
  assert.equal(crossPluginOffence('governance/tally.ts', 'staking/methods.ts'), true);
  assert.equal(crossPluginOffence('governance/index.test.ts', 'staking/store.ts'), true);
  assert.equal(crossPluginOffence('governance/index.test.ts', 'staking/index.ts'), true);
});

test('the boundary check sees every form of import', () => {
  const text = "import { a } from '../../kernel/x.js';\nimport type { B } from '../../kernel/y.js';\nexport { c } from '../../kernel/z.js';\nimport '../../kernel/side.js';\nconst m = await import('../../kernel/lazy.js');";
  assert.deepEqual(importsOf(text), ['../../kernel/x.js', '../../kernel/y.js', '../../kernel/z.js', '../../kernel/side.js', '../../kernel/lazy.js']);
});
