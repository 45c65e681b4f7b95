import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PastState, StaleRead } from './past-state.js';
import type { StateSource } from '../state/overlay.js';
import { utf8Bytes } from '../codec/utf8.js';

const text = (s: string): Uint8Array => utf8Bytes(s);
const decode = (rows: Array<[string, Uint8Array]>): Array<[string, string]> => rows.map(([k, v]) => [k, new TextDecoder().decode(v)]);

/** Height h's state in a map (what the tree at h's root answers) and the head state after block h + 1. */
function fixture(): { past: Map<string, string>; head: StateSource; sequence: { n: number } } {
  const past = new Map([['p/a', '1'], ['p/b', '2'], ['p/c', '3'], ['q/x', '9']]);
  // Block h + 1 changed p/a, deleted p/b and created p/d.
  const headRows = new Map([['p/a', '10'], ['p/c', '3'], ['p/d', '4'], ['q/x', '9']]);
  const head: StateSource = {
    get: async (k) => (headRows.has(k) ? text(headRows.get(k)!) : undefined),
    scan: async (prefix) => [...headRows].filter(([k]) => k.startsWith(prefix)).sort().map(([k, v]) => [k, text(v)] as [string, Uint8Array]),
  };
  return { past, head, sequence: { n: 4 } };
}

function view(f: ReturnType<typeof fixture>): PastState {
  const treeGet = async (_root: Uint8Array, key: Uint8Array): Promise<Uint8Array | undefined> => {
    const v = f.past.get(new TextDecoder().decode(key));
    return v === undefined ? undefined : text(v);
  };
  return new PastState({ treeGet, head: f.head, sequence: () => f.sequence.n }, 7, new Uint8Array(32), new Set(['p/a', 'p/b', 'p/d']), 4);
}

test('the state before the head: gets from its root, scans from the head corrected by what the head block wrote', async () => {
  const f = fixture();
  const v = view(f);
  assert.equal(new TextDecoder().decode((await v.get('p/a'))!), '1');
  assert.equal(await v.get('p/d'), undefined);
  assert.deepEqual(decode(await v.scan('p/')), [['p/a', '1'], ['p/b', '2'], ['p/c', '3']]);
  assert.deepEqual(decode(await v.scan('q/')), [['q/x', '9']]);
  assert.deepEqual([...v.keysRead], ['p/a', 'p/d']);
});

test('a scan that a commit overtook fails as StaleRead, so the read starts again', async () => {
  const f = fixture();
  const v = view(f);
  f.sequence.n = 5;
  await assert.rejects(v.scan('p/'), StaleRead);
  f.sequence.n = 6;
  await assert.rejects(v.scan('p/'), StaleRead);
});
