import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The plugin SDK is the kernel's one public entry point: a plugin that imports any other module
 * of kernel/ would tie itself to code the kernel may change without notice. This reads every
 * source file under plugins/ (tests and test support included) and refuses such an import.
 */
const ROOT = resolve('.');
const SDK = join(ROOT, 'kernel', 'sdk.ts');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every module specifier of static imports, re-exports and dynamic imports. */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) specs.push(m[1]!);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]!);
  return specs;
}

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

test('the boundary check sees every form of import', () => {
  const text = "import { a } from '../../kernel/x.js';\nimport type { B } from '../../kernel/y.js';\nexport { c } from '../../kernel/z.js';\nimport '../../kernel/side.js';\nconst m = await import('../../kernel/lazy.js');";
  assert.deepEqual(importsOf(text), ['../../kernel/x.js', '../../kernel/y.js', '../../kernel/z.js', '../../kernel/side.js', '../../kernel/lazy.js']);
});
