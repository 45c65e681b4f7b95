import { nobleProvider } from '../noble-provider.js';
import type { LoadedProvider, ProviderLoad, ProviderName } from './common.js';
import { loadNodeCryptoProvider } from './node-crypto.js';
import { loadPqcleanProvider } from './pqclean.js';

export { isProviderName, PROVIDER_NAMES, signerFor, type LoadedProvider, type ProviderLoad, type ProviderName, type SigningMode } from './common.js';
export { knownAnswerFailure } from './known-answer.js';

const noble: LoadedProvider = {
  name: 'noble',
  description: '@noble/post-quantum ML-DSA-65 (pure JavaScript)',
  keygen: (seed) => nobleProvider.keygen(seed),
  sign: (message, secretKey) => nobleProvider.sign(message, secretKey),
  verify: (signature, message, publicKey) => nobleProvider.verify(signature, message, publicKey),
};

const loaded = new Map<ProviderName, ProviderLoad>();

/**
 * Loads a provider by name, once per thread (pool workers call this with the name the main
 * thread selected). Never throws: an unavailable provider comes back with the reason.
 */
export function loadProvider(name: ProviderName): ProviderLoad {
  let r = loaded.get(name);
  if (!r) {
    r = name === 'noble' ? { ok: true, provider: noble } : name === 'pqclean' ? loadPqcleanProvider() : loadNodeCryptoProvider();
    loaded.set(name, r);
  }
  return r;
}
