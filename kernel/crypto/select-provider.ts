import type { SignatureProvider } from './provider.js';
import { nobleProvider } from './noble-provider.js';

export type ProviderChoice = 'auto' | 'noble' | 'pqclean' | 'node';

/**
 * Picks the signature provider at start. Only the pure-JS provider is built in today; the native
 * providers (PQClean binding, node:crypto ML-DSA) plug in here behind the same interface.
 */
export function selectProvider(choice: ProviderChoice): { provider: SignatureProvider; reason: string } {
  if (choice === 'noble' || choice === 'auto') {
    return { provider: nobleProvider, reason: choice === 'auto' ? 'auto: no native ML-DSA-65 provider is available, using @noble/post-quantum' : 'forced by CHAIN_CRYPTO_PROVIDER=noble' };
  }
  throw new Error(`CHAIN_CRYPTO_PROVIDER=${choice}: that provider is not available in this build (use noble or auto)`);
}
