import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The light client must bundle for the browser as it is (the browser module and the explorer,
 * decisions.md §86, §88): nothing it imports, however indirectly, may need Node. This walks the
 * compiled import graph from its entry point.
 */
const here = dirname(fileURLToPath(import.meta.url));
const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g;
const NODE_GLOBAL_RE = /\b(?:Buffer|process)\s*[.(]/;

test('the light client imports nothing but itself, pure kernel codecs and @noble', () => {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, NODE_GLOBAL_RE, `${file} uses a Node global`);
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else bare.add(spec);
    }
  };
  visit(join(here, 'index.js'));
  for (const spec of bare) assert.match(spec, /^@noble\//, `the light client imports ${spec}`);
  assert.ok(seen.size >= 6);
});
