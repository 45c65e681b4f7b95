import type { SignatureProvider } from './provider.js';
import { knownAnswerFailure, loadProvider, PROVIDER_NAMES, type LoadedProvider, type ProviderName } from './providers/index.js';

export type ProviderChoice = 'auto' | ProviderName;

/** Known-answer results per provider, so a second selectProvider (tests, CLI) does not redo them. */
const verdicts = new Map<ProviderName, string | null>();

/** The provider if it loads and reproduces the known answers, else why not. */
function trusted(name: ProviderName): { provider: LoadedProvider } | { reason: string } {
  const load = loadProvider(name);
  if (!load.ok) return { reason: load.reason };
  let failure = verdicts.get(name);
  if (failure === undefined) {
    failure = knownAnswerFailure(load.provider);
    verdicts.set(name, failure);
  }
  return failure === null ? { provider: load.provider } : { reason: `failed the known-answer check: ${failure}` };
}

/**
 * Picks the signature provider at start (synchronous: the optional native binding is loaded with
 * require() inside loadProvider, so no call site had to become async).
 *
 * `auto` takes the fastest provider that loads and passes the built-in known-answer check, in the
 * order node:crypto > pqclean > noble, and says in `reason` why faster ones were skipped. A forced
 * choice (CHAIN_CRYPTO_PROVIDER) that is unavailable or fails the check is an error, never a
 * silent fallback: the operator asked for that provider.
 */
export function selectProvider(choice: ProviderChoice): { provider: LoadedProvider; reason: string } {
  if (choice !== 'auto') {
    const t = trusted(choice);
    if ('reason' in t) throw new Error(`CHAIN_CRYPTO_PROVIDER=${choice}: provider unavailable: ${t.reason} (use auto or noble)`);
    return { provider: t.provider, reason: `forced by CHAIN_CRYPTO_PROVIDER=${choice}: ${t.provider.description}` };
  }
  const skipped: string[] = [];
  for (const name of PROVIDER_NAMES) {
    const t = trusted(name);
    if ('provider' in t) {
      return { provider: t.provider, reason: `auto: ${t.provider.description}${skipped.length > 0 ? `; skipped ${skipped.join('; ')}` : ''}` };
    }
    skipped.push(`${name}: ${t.reason}`);
  }
  throw new Error(`no signature provider passed its known-answer check: ${skipped.join('; ')}`);
}
