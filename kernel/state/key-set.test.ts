import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wallet } from '../../test/helpers/chain-fixture.js';
import { MemoryStore } from '../store/level-store.js';
import { ChainStore } from '../store/chain-store.js';
import { StateOverlay } from './overlay.js';
import { accountsReader, accountsWriter } from './accounts.js';
import { isMainKey, listMainKeys, readKeySet, writeKeySet } from './key-set.js';
import { presentedKey } from '../auth/presented-key.js';

const a = wallet(81);
const b = wallet(82);
const keyOf = (w: typeof a) => presentedKey({}, w.publicKeyHex);

test('main keys: the derived key alone, a bound key in its place, then an explicit set that is the whole truth', async () => {
  const overlay = new StateOverlay(new ChainStore(new MemoryStore()).state);
  assert.equal(await isMainKey(overlay, a.address, keyOf(a)), true, 'a key signs for its derived address without registration');
  assert.equal(await isMainKey(overlay, a.address, keyOf(b)), false);
  assert.equal(await isMainKey(overlay, 'chain:someone.human', keyOf(a)), false, 'no key signs for an unbound name');

  await accountsWriter(overlay).bindKey(a.address, b.publicKeyHex);
  assert.equal(await isMainKey(overlay, a.address, keyOf(b)), true, 'the bound key signs');
  assert.equal(await isMainKey(overlay, a.address, keyOf(a)), false, 'a bound key replaces the derived one');

  writeKeySet(overlay, a.address, { keys: [a.publicKeyHex, b.publicKeyHex], version: 1 });
  assert.equal(await isMainKey(overlay, a.address, keyOf(a)), true);
  assert.equal(await isMainKey(overlay, a.address, keyOf(b)), true);
  assert.deepEqual(await readKeySet(overlay, a.address), { keys: [a.publicKeyHex, b.publicKeyHex], version: 1 });
  assert.equal((await accountsReader(overlay).get(a.address)).public_key, a.publicKeyHex, 'the account shows the first key of the set');

  writeKeySet(overlay, a.address, { keys: [b.publicKeyHex], version: 2 });
  assert.equal(await isMainKey(overlay, a.address, keyOf(a)), false, 'a derived key removed from the set is refused like any unknown key');
  assert.deepEqual(await listMainKeys(overlay, a.address, a.publicKeyHex), { keys: [b.publicKeyHex], version: 2 });
  assert.deepEqual(await listMainKeys(overlay, b.address, b.publicKeyHex), { keys: [b.publicKeyHex], version: 0 });
});

test('plugins read and replace main keys through their accounts context (the SDK\'s mainKeys and setMainKeys)', async () => {
  const overlay = new StateOverlay(new ChainStore(new MemoryStore()).state);
  const accounts = accountsWriter(overlay);
  assert.deepEqual(await accounts.mainKeys(a.address, a.publicKeyHex), { keys: [a.publicKeyHex], version: 0 });
  accounts.setMainKeys(a.address, { keys: [b.publicKeyHex], version: 1 });
  assert.equal(await isMainKey(overlay, a.address, keyOf(a)), false);
  assert.equal(await isMainKey(overlay, a.address, keyOf(b)), true);
  assert.deepEqual(await accountsReader(overlay).mainKeys(a.address, a.publicKeyHex), { keys: [b.publicKeyHex], version: 1 });
});
