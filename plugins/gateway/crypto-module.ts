import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { notFound, reply, unavailable, type RouteTable } from '../../kernel/sdk.js';
import { GATEWAY_ROUTES } from './declarations.js';

/**
 * The browser crypto module (decisions.md §86) as the gateway serves it: the bytes `npm run
 * build` bundled (sdk/build/crypto-module.ts writes them to `dist/web/`) at
 * `/api/v1/wasm/chain-crypto-<version>.mjs`, immutable, and their manifest at
 * `/api/v1/wasm/version`, whose size and digests are computed here from the very bytes served.
 */
export const WASM_VERSION_PATH = '/api/v1/wasm/version';

/** `dist/web/`, beside this file's `dist/plugins/gateway/`. */
export const BUILT_WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const MANIFEST_FILE = 'chain-crypto.manifest.json';

export interface ServedModule {
  readonly bytes: Uint8Array;
  readonly manifest: Readonly<Record<string, unknown>>;
  readonly file: string;
  /** The module's semver (the client SDK package's): `wasm_version` of the network summary. */
  readonly version: string;
}

/** Reads the built module and its build manifest; undefined when the build has not made them. */
export function loadCryptoModule(dir = BUILT_WEB_DIR): ServedModule | undefined {
  let built: { name: string; version: string; format: string; file: string; exports: string[]; built_from: Record<string, unknown> };
  let bytes: Uint8Array;
  try {
    built = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as typeof built;
    bytes = new Uint8Array(readFileSync(join(dir, built.file)));
  } catch {
    return undefined;
  }
  const digest = createHash('sha384').update(bytes).digest();
  const manifest = {
    name: built.name,
    version: built.version,
    format: built.format,
    url: `/api/v1/wasm/${built.file}`,
    size: bytes.length,
    sha384: digest.toString('hex'),
    integrity: `sha384-${digest.toString('base64')}`,
    algorithm: 'ML-DSA-65',
    hash: 'SHA3-256',
    mnemonic: 'BIP-39 English, 24 words',
    exports: built.exports,
    built_from: built.built_from,
  };
  return { bytes, manifest, file: built.file, version: built.version };
}

export function registerCryptoModuleRoutes(routes: RouteTable, module: ServedModule | undefined): void {
  const missing = () => unavailable('the browser crypto module is not built', 'run npm run build on the gateway host');
  routes.serve(GATEWAY_ROUTES.wasmVersion, () => {
    if (!module) throw missing();
    return module.manifest;
  });
  routes.serve(GATEWAY_ROUTES.wasmModule, (req) => {
    if (!module) throw missing();
    if (req.params.file !== module.file) throw notFound(`no module ${req.params.file}: this gateway serves ${module.file}`);
    // The name carries the version: the bytes behind it never change.
    return reply(200, module.bytes, { contentType: 'text/javascript; charset=utf-8', headers: { 'cache-control': 'public, max-age=31536000, immutable' } });
  });
}
