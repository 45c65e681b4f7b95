import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { nobleProvider } from '../noble-provider.js';
import type { KeyPair } from '../provider.js';
import { checkSecretKey, errorText, plain, wellFormed, type LoadedProvider, type ProviderLoad } from './common.js';

/** The slice of the `pqclean` package (tniessen/node-pqclean, CommonJS, no typings) used here. */
interface PqcleanSign {
  readonly publicKeySize: number;
  readonly privateKeySize: number;
  readonly signatureSize: number;
  /** Hedged: PQClean's ML-DSA draws `rnd` from randombytes() on every call. */
  sign(privateKey: Uint8Array, message: Uint8Array): Uint8Array;
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}
interface PqcleanModule {
  readonly Sign: new (algorithm: string) => PqcleanSign;
}

function isPqcleanModule(m: unknown): m is PqcleanModule {
  return typeof m === 'object' && m !== null && typeof (m as { Sign?: unknown }).Sign === 'function';
}

/**
 * ML-DSA-65 verification through the native PQClean binding (`pqclean`, an optional dependency
 * compiled by node-gyp at install). Loaded with require() inside the call, not a static import:
 * a machine where the package is absent or failed to build just gets a reason string, and
 * selectProvider stays synchronous.
 *
 * PQClean exposes no seed-based key generation (its keypair() draws the seed from
 * randombytes) and signs hedged only, so keygen and sign run through noble (FIPS 204
 * KeyGen_internal and the deterministic signer); its secret key encoding is the same FIPS 204
 * one, which `signNative` proves in the shared vectors. Verification, the hot path (every
 * transaction and vote on every validator), is native.
 */
export function loadPqcleanProvider(): ProviderLoad {
  let mod: unknown;
  let packageDir: string;
  try {
    const require = createRequire(import.meta.url);
    packageDir = dirname(require.resolve('pqclean/package.json'));
    mod = require('pqclean');
  } catch (e) {
    return { ok: false, reason: `the optional package pqclean is not installed or did not load: ${errorText(e)}` };
  }
  if (!isPqcleanModule(mod)) return { ok: false, reason: 'the pqclean package has no Sign class (unexpected version)' };
  let impl: PqcleanSign;
  try {
    impl = new mod.Sign('ml-dsa-65');
  } catch (e) {
    return { ok: false, reason: `this pqclean build has no ml-dsa-65: ${errorText(e)}` };
  }
  if (impl.publicKeySize !== 1952 || impl.privateKeySize !== 4032 || impl.signatureSize !== 3309) {
    return { ok: false, reason: `pqclean ml-dsa-65 sizes ${impl.publicKeySize}/${impl.privateKeySize}/${impl.signatureSize} are not FIPS 204 ML-DSA-65` };
  }
  // pqclean falls back to its WebAssembly build when the addon did not compile; still correct,
  // slower, and worth a word in the start log.
  const backend = existsSync(join(packageDir, 'build', 'Release', 'node_pqclean.node')) ? 'native addon' : 'WebAssembly fallback';
  const provider: LoadedProvider = {
    name: 'pqclean',
    description: `pqclean (PQClean ml-dsa-65 clean, ${backend}) verify; keygen and deterministic sign via @noble/post-quantum`,
    keygen(seed: Uint8Array): KeyPair {
      return nobleProvider.keygen(seed);
    },
    sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
      return nobleProvider.sign(message, secretKey);
    },
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
      if (!wellFormed(signature, publicKey)) return false;
      try {
        return impl.verify(publicKey, message, signature) === true;
      } catch {
        return false;
      }
    },
    signNative(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
      checkSecretKey(secretKey);
      return plain(impl.sign(secretKey, message));
    },
  };
  return { ok: true, provider };
}
