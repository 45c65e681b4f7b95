import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/*
 * The repository README's "Writing a plugin" example is test/fixtures/readme-example.ts, which the
 * build compiles and kernel/node/proven-reads.test.ts runs (its operation, its route, a proven
 * read): the README shows exactly that file, so the example a newcomer copies works.
 */
test('the README\'s plugin example is the fixture the tests build and run', () => {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## Writing a plugin'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the section has a ts example');
  assert.equal(block, readFileSync('test/fixtures/readme-example.ts', 'utf8'));
});

test('the example lists its read route, so a gateway forwards it as well as the node serves it', async () => {
  const { memoPlugin, memoRoute } = await import('./fixtures/readme-example.js');
  const { listedPluginRoutes } = await import('../plugins/gateway/plugin-reads.js');
  const catalogue = new Map([[memoPlugin.name, memoPlugin]]) as Parameters<typeof listedPluginRoutes>[0];
  const forwarded = listedPluginRoutes(catalogue);
  assert.deepEqual(forwarded.map((f) => [f.plugin, f.route.method, f.route.path]), [['memo', memoRoute.method, memoRoute.path]]);
});
