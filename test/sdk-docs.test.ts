import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/*
 * docs/plugin-sdk.md documents every export of kernel/sdk.ts: an export added without a word in the
 * guide (or one left in the guide after it went) fails here.
 */
function exportsOf(sdk: string): string[] {
  const names: string[] = [];
  for (const m of sdk.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const name = part.replace(/\btype\b/, '').trim().split(/\s+as\s+/).pop()!.trim();
      if (name !== '') names.push(name);
    }
  }
  for (const m of sdk.matchAll(/export \* as (\w+)/g)) names.push(m[1]!);
  return names;
}

test('every export of kernel/sdk.ts is documented in docs/plugin-sdk.md, in the guide and in its export index', () => {
  const names = exportsOf(readFileSync('kernel/sdk.ts', 'utf8'));
  assert.ok(names.length > 150, 'the exports were read');
  const doc = readFileSync('docs/plugin-sdk.md', 'utf8');
  const index = doc.slice(doc.indexOf('## Export index'));
  const guide = doc.slice(0, doc.indexOf('## Export index'));
  const mentioned = (text: string, n: string) => new RegExp(`\\b${n}\\b`).test(text);
  assert.deepEqual(names.filter((n) => !mentioned(index, n)), [], 'missing from the export index');
  assert.deepEqual(names.filter((n) => !mentioned(guide, n)), [], 'exported but not explained in the guide');
});
