import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectDocPassages, passagesOf } from './docs-passages.js';
import { ASSISTANT_MODEL, buildDocsIndex, DocsSearch } from './docs-search.js';

test('a Markdown file splits into its sections; headings inside code fences do not count', () => {
  const md = '# Staking\nintro text\n\n## Unstake\nwait `unbonding_blocks`\n```sh\n# not a heading\nchain op unstake\n```\n## Rewards\npaid every interval\n';
  const p = passagesOf('docs/staking.md', md);
  assert.deepEqual(
    p.map((x) => [x.id, x.title, x.text]),
    [
      ['docs/staking.md#0', 'Staking', 'intro text'],
      ['docs/staking.md#1', 'Unstake', 'wait `unbonding_blocks`\n```sh\n# not a heading\nchain op unstake\n```'],
      ['docs/staking.md#2', 'Rewards', 'paid every interval'],
    ],
  );
  const long = passagesOf('a.md', `# Long\n${Array.from({ length: 40 }, (_, i) => `paragraph ${i} ${'word '.repeat(20)}`).join('\n\n')}`);
  assert.ok(long.length > 1 && long.every((x) => x.text.length <= 1500 && x.title === 'Long'));
});

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), 'docs-index-'));
  mkdirSync(join(root, 'docs'));
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(root, 'README.md'), '# pq-chain\nA post-quantum ledger.\n\n## Quick start\nRun npm run devnet to start four validators.\n');
  writeFileSync(join(root, 'docs', 'staking.md'), '# Staking\n## Delegation\nDelegate coins to a .node validator; the commission is taken from rewards.\n## Unbonding\nUnstake after unbonding_blocks.\n');
  writeFileSync(join(root, 'node_modules', 'dep', 'README.md'), '# Dependency\nDelegate delegate delegate.\n');
  return root;
}

test('the index answers the best passages with their sources, the same answer every time, nothing for nothing', () => {
  const root = repo();
  const passages = collectDocPassages(root);
  assert.deepEqual([...new Set(passages.map((p) => p.path))], ['README.md', 'docs/staking.md'], 'node_modules is not documentation');
  const docs = DocsSearch.fromJson(buildDocsIndex(passages));
  assert.equal(docs.documents, 2);
  const a = docs.ask('How do I delegate to a validator?');
  assert.equal(a.model, ASSISTANT_MODEL);
  assert.equal(a.sources[0]!.path, 'docs/staking.md');
  assert.equal(a.sources[0]!.title, 'Delegation');
  assert.ok(a.sources[0]!.score > 0);
  assert.match(a.answer, /commission is taken from rewards/);
  assert.deepEqual(docs.ask('How do I delegate to a validator?'), a, 'deterministic');
  // A second index built from the same files answers identically.
  assert.deepEqual(DocsSearch.fromJson(buildDocsIndex(collectDocPassages(root))).ask('How do I delegate to a validator?'), a);
  assert.deepEqual(docs.ask('zebra quasar'), { answer: '', sources: [], model: ASSISTANT_MODEL }, 'no passage matches: empty answer');
  assert.deepEqual(docs.ask('how do I'), { answer: '', sources: [], model: ASSISTANT_MODEL }, 'stop words alone match nothing');
});
