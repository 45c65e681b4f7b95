import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freshApiDocuments, OPENAPI_FILES } from '../../cli/write-openapi.js';

// decisions.md §87: the committed reference is what a devnet node and its gateway serve now.
test('the committed docs/openapi.json and docs/openapi-gateway.json equal the documents a devnet node and gateway serve', async () => {
  const fresh = await freshApiDocuments();
  for (const which of ['node', 'gateway'] as const) {
    const committed = readFileSync(OPENAPI_FILES[which], 'utf8');
    assert.ok(committed === fresh[which], `${OPENAPI_FILES[which]} is stale: run npm run openapi and commit it`);
  }
});
