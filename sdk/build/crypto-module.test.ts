import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MANIFEST_FILE, WEB_DIR, bundleCryptoModule, moduleFileName, repoRoot, type BuiltManifest } from './crypto-module.js';
import { SDK_VERSION } from '../version.js';
import { keyFromSeed, signOperation, signTransfer } from '../index.js';
import { loadCryptoModule } from '../../plugins/gateway/crypto-module.js';

/**
 * The browser crypto module as `npm run build` left it (decisions.md §86): the same bytes when
 * built again from the same sources and lockfile, at most 100 KB, exporting §86's names, and
 * giving in any JavaScript runtime what the SDK gives: the §4 vector, v4 bodies, checks.
 */
const root = repoRoot();
const built = (): { bytes: Uint8Array; manifest: BuiltManifest } => {
  const manifest = JSON.parse(readFileSync(join(root, WEB_DIR, MANIFEST_FILE), 'utf8')) as BuiltManifest;
  return { manifest, bytes: new Uint8Array(readFileSync(join(root, WEB_DIR, manifest.file))) };
};

test('the built module is the bytes a fresh esbuild run gives, at most 100 KB, with §86\'s exports and a manifest naming what it was built from', async () => {
  const { bytes, manifest } = built();
  const again = await bundleCryptoModule(root);
  assert.ok(Buffer.from(again.bytes).equals(Buffer.from(bytes)), 'same sources, same lockfile: same bytes');
  assert.ok(bytes.length <= 100 * 1024, `${bytes.length} bytes`);
  assert.equal(manifest.file, moduleFileName(SDK_VERSION));
  assert.deepEqual([manifest.name, manifest.version, manifest.format], ['chain-crypto', SDK_VERSION, 'esm']);
  for (const name of ['version', 'keygen', 'generatePhrase', 'fromPhrase', 'addressOf', 'sign', 'verify', 'sha3_256', 'signTransfer', 'signOperation', 'verifyProvenRead']) assert.ok(manifest.exports.includes(name), `exports ${name}`);
  assert.match(manifest.built_from.bundler, /^esbuild \d+\.\d+\.\d+$/);
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  assert.ok(Object.keys(manifest.built_from.dependencies).includes('@noble/post-quantum'));
  for (const [name, version] of Object.entries(manifest.built_from.dependencies)) assert.equal(version, lock.packages[`node_modules/${name}`]?.version, `${name} as the lockfile pins it`);
  // What the gateway serves of it: size and digests of these very bytes.
  const served = loadCryptoModule(join(root, WEB_DIR))!;
  assert.equal(served.manifest['size'], bytes.length);
  assert.match(String(served.manifest['sha384']), /^[0-9a-f]{96}$/);
  assert.equal(served.manifest['integrity'], `sha384-${Buffer.from(String(served.manifest['sha384']), 'hex').toString('base64')}`);
  assert.equal(served.manifest['url'], `/api/v1/wasm/${manifest.file}`);
});

test('the module gives the §4 vector, phrases, signatures and v4 bodies equal to the SDK\'s', async () => {
  const { manifest } = built();
  const m = (await import(pathToFileURL(join(root, WEB_DIR, manifest.file)).href)) as Record<string, (...a: unknown[]) => unknown> & { version: string };
  assert.equal(m.version, SDK_VERSION);
  const seed = '01'.repeat(32);
  const k = m.keygen!(seed) as { seed_hex: string; public_key: string; address: string };
  assert.equal(k.address, 'chain:307f4559431e680.human');
  assert.equal(m.addressOf!(k.public_key), k.address);
  const random = m.keygen!() as { seed_hex: string };
  assert.match(random.seed_hex, /^[0-9a-f]{64}$/);
  const words = m.generatePhrase!() as string[];
  assert.equal(words.length, 24);
  assert.equal((m.fromPhrase!(words) as { address: string }).address, (m.fromPhrase!(words.join(' ')) as { address: string }).address);
  const sig = m.sign!(seed, 'hello') as string;
  assert.equal(m.verify!(k.public_key, 'hello', sig), true);
  assert.equal(m.verify!(k.public_key, 'hellO', sig), false);
  assert.equal(m.sha3_256!(''), '0xa7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a');
  const transfer = { chain_id: 'c-1', to: 'chain:aaaaaaaaaaaaaaa.human', value: 5, nonce: 3, gas_price: 1 };
  assert.deepEqual(m.signTransfer!(seed, transfer), signTransfer(keyFromSeed(seed), { chainId: 'c-1', to: transfer.to, value: 5, nonce: 3, gasPrice: 1 }));
  const op = m.signOperation!(seed, { chain_id: 'c-1', type: 'stake', target: 'chain:system.stake', body: { address: k.address, amount: 10 }, gas_price: 1, nonce: 1_800_000_000_000 });
  assert.deepEqual(op, signOperation(keyFromSeed(seed), { chainId: 'c-1', type: 'stake', target: 'chain:system.stake', body: { address: k.address, amount: 10 }, gasPrice: 1, nonce: 1_800_000_000_000 }));
  const fresh = m.signOperation!(seed, { chain_id: 'c-1', type: 'unstake', target: 'chain:system.stake', body: { address: k.address }, gas_price: 1 }) as { nonce: number };
  assert.ok(fresh.nonce >= Date.now() - 60_000, 'a millisecond nonce when none is given');
});
