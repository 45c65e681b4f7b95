import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SnapshotStreamReader, valueEnd } from './snapshot-stream.js';

/** Feeds `text` in pieces of `size` bytes; returns the fields, the entries and the most characters held at once. */
async function read(text: string, size: number): Promise<{ fields: Record<string, unknown>; entries: unknown[]; maxBuffered: number }> {
  const fields: Record<string, unknown> = {};
  const entries: unknown[] = [];
  const reader = new SnapshotStreamReader({ field: (k, v) => (fields[k] = v), entry: (e) => void entries.push(e) });
  const bytes = new TextEncoder().encode(text);
  let maxBuffered = 0;
  for (let i = 0; i < bytes.length; i += size) {
    await reader.push(bytes.subarray(i, i + size));
    maxBuffered = Math.max(maxBuffered, reader.bufferedChars);
  }
  reader.end();
  return { fields, entries, maxBuffered };
}

const doc = {
  chain_id: 'c',
  height: 7,
  block: '{"header":{"x":"a\\"b}"}}',
  certifying_commit: { precommits: [{ v: 'é', n: -1.5e3 }], ok: true, none: null },
  entries: [
    ['acct/a', '00ff'],
    ['k"ey\\', ''],
    ['z', 'ab'],
  ],
  entries_hash: '0x12',
};

test('the reader hands over every field and entry, whatever the chunking and the layout', async () => {
  const expected = { ...doc } as Record<string, unknown>;
  delete expected.entries;
  for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2)]) {
    for (const size of [1, 2, 7, 64, 100_000]) {
      const got = await read(text, size);
      assert.deepEqual(got.fields, expected, `chunks of ${size}`);
      assert.deepEqual(got.entries, doc.entries, `chunks of ${size}`);
    }
  }
  assert.deepEqual((await read('{"entries":[]}', 1)).entries, []);
});

test('memory stays at one chunk and one entry however many entries stream by', async () => {
  const entries = Array.from({ length: 20_000 }, (_, i) => [`acct/${String(i).padStart(8, '0')}`, 'ab'.repeat(60)]);
  const text = JSON.stringify({ chain_id: 'c', entries, entries_hash: '0x1' });
  const chunk = 16 * 1024;
  const got = await read(text, chunk);
  assert.equal(got.entries.length, 20_000);
  assert.ok(text.length > 50 * chunk);
  // A chunk plus the unfinished entry it ends in, never the document.
  assert.ok(got.maxBuffered <= chunk + 200, `held ${got.maxBuffered} characters`);
});

test('a document that is cut off, trails bytes, or is not a snapshot object is refused', async () => {
  const text = JSON.stringify(doc);
  await assert.rejects(read(text.slice(0, -1), 5), /ended early/);
  await assert.rejects(read(text.slice(0, 40), 5), /ended early/);
  await assert.rejects(read(text + '{}', 5), /after the end|trailing/);
  await assert.rejects(read('[1,2]', 5), /expected the snapshot object/);
  await assert.rejects(read('{"entries":{"a":1}}', 5), /expected the entries array/);
  await assert.rejects(read('{"entries":[["a","b"] ["c","d"]]}', 5), /after an entry/);
});

test('valueEnd finds the end of strings with escapes, nested values and literals, or says it is not here yet', () => {
  assert.equal(valueEnd('"a\\\\"x', 0), 5);
  assert.equal(valueEnd('"a\\"b"', 0), 6);
  assert.equal(valueEnd('{"a":["}"]}rest', 0), 11);
  assert.equal(valueEnd('12,', 0), 2);
  assert.equal(valueEnd('12', 0), -1);
  assert.equal(valueEnd('{"a":[1', 0), -1);
  assert.equal(valueEnd('"abc', 0), -1);
});
