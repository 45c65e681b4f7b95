import { build, version as esbuildVersion, type Metafile, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SDK_PACKAGE, SDK_VERSION } from '../version.js';
import { BROWSER_BUNDLE } from './browser-bundle.js';

/**
 * Builds the browser crypto module (decisions.md §86): `sdk/crypto.ts` and everything it imports
 * (the SDK's keys and signing, the kernel's layouts and light client, noble, scure) bundled by
 * esbuild into one minified ES module, and its manifest. Nothing built is committed: `npm run
 * build` makes it from the sources and the lockfile's packages, so one commit and one lockfile
 * give the same bytes (crypto-module.test.ts builds it again and compares).
 */

/** Where the build writes, under the repository's `dist/`. */
export const WEB_DIR = join('dist', 'web');
export const MANIFEST_FILE = 'chain-crypto.manifest.json';
export const moduleFileName = (version: string): string => `chain-crypto-${version}.mjs`;

/** What the build records beside the bytes; the gateway adds size, digests and url (plugins/gateway/crypto-module.ts). */
export interface BuiltManifest {
  readonly name: 'chain-crypto';
  readonly version: string;
  readonly format: 'esm';
  readonly file: string;
  readonly exports: readonly string[];
  readonly built_from: {
    readonly package: string;
    readonly version: string;
    readonly bundler: string;
    readonly dependencies: Readonly<Record<string, string>>;
  };
}

/**
 * `kernel/crypto/hash.ts` hashes through node:crypto (OpenSSL, the node's hot path); the bundle
 * takes its browser twin `hash.browser.ts` (noble, same bytes) instead, as a package's `browser`
 * field would swap a file.
 */
function browserHash(root: string): Plugin {
  const nodeHash = join(root, 'kernel', 'crypto', 'hash.js');
  return {
    name: 'kernel-hash-for-browsers',
    setup(b) {
      b.onResolve({ filter: /hash\.js$/ }, (args) => (resolve(args.resolveDir, args.path) === nodeHash ? { path: join(root, 'kernel', 'crypto', 'hash.browser.ts') } : undefined));
    },
  };
}

/** The esbuild run itself: the same options every time, in memory. */
export async function bundleCryptoModule(root: string): Promise<{ bytes: Uint8Array; metafile: Metafile }> {
  const result = await build({
    ...BROWSER_BUNDLE,
    absWorkingDir: root,
    entryPoints: [join(root, 'sdk', 'crypto.ts')],
    write: false,
    logLevel: 'silent',
    plugins: [browserHash(root)],
  });
  const out = result.outputFiles[0];
  if (!out) throw new Error('esbuild wrote no output');
  return { bytes: out.contents, metafile: result.metafile };
}

/** Each bundled npm package, with the exact version the lockfile installed. */
export function bundledPackages(root: string, metafile: Metafile): Record<string, string> {
  const names = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) names.add(m[1]!);
  }
  const out: Record<string, string> = {};
  for (const name of [...names].sort()) out[name] = (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  return out;
}

export async function buildCryptoModule(root: string): Promise<{ path: string; manifest: BuiltManifest; size: number }> {
  const { bytes, metafile } = await bundleCryptoModule(root);
  const exports = Object.values(metafile.outputs)[0]?.exports ?? [];
  const file = moduleFileName(SDK_VERSION);
  const manifest: BuiltManifest = {
    name: 'chain-crypto',
    version: SDK_VERSION,
    format: 'esm',
    file,
    exports: [...exports].sort(),
    built_from: { package: SDK_PACKAGE, version: SDK_VERSION, bundler: `esbuild ${esbuildVersion}`, dependencies: bundledPackages(root, metafile) },
  };
  const dir = join(root, WEB_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), bytes);
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
  return { path: join(dir, file), manifest, size: bytes.length };
}

export function sha384Hex(bytes: Uint8Array): string {
  return createHash('sha384').update(bytes).digest('hex');
}

/** The repository root, from this file's place in `dist/sdk/build/`. */
export function repoRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}
