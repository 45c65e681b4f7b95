import { getJson, type Json } from './api.js';

/**
 * The account view's check (decisions.md §85, §88): the browser crypto module the gateway serves
 * (§86, loaded from its manifest's same-origin url) verifies the `prove=true` answer against the
 * validators of `GET /api/v1/genesis`, whose hash is pinned for this origin on first use.
 */

/** What the explorer uses of the module (its exports, decisions.md §86). */
interface CryptoModule {
  readonly version: string;
  genesisHash(genesis: unknown): string;
  trustFromGenesis(genesis: unknown, genesisHash: string): unknown;
  verifyProvenRead(answer: unknown, trusted: unknown, options?: { kind?: 'account' | 'record' }): { height: number; state_root: string; set_changed: boolean; trusted: unknown };
}

export interface Verdict {
  readonly verified: boolean;
  readonly genesisHash: string;
  readonly height?: number;
  /** The failed check (`LightClientError.check`) and its message. */
  readonly error?: string;
}

let modulePromise: Promise<CryptoModule> | undefined;
let trusted: unknown;

function loadModule(): Promise<CryptoModule> {
  modulePromise ??= (async () => {
    const manifest = await getJson('/api/v1/wasm/version');
    const url = String(manifest['url']);
    if (!url.startsWith('/')) throw new Error(`the module url ${url} is not of this origin`);
    return (await import(/* @vite-ignore */ url)) as CryptoModule;
  })();
  modulePromise.catch(() => (modulePromise = undefined));
  return modulePromise;
}

const PIN_KEY = `chain-explorer:genesis-hash:${location.origin}`;

function pinned(): string | null {
  try {
    return localStorage.getItem(PIN_KEY);
  } catch {
    return null;
  }
}

function pin(hash: string): void {
  try {
    localStorage.setItem(PIN_KEY, hash);
  } catch {
    // storage refused (private mode): the pin lasts for this page
  }
}

let sessionPin: string | null = null;

/** The genesis hash this origin is pinned to, pinning the served genesis on first use. */
async function anchor(mod: CryptoModule): Promise<{ hash: string; genesis: Json }> {
  const genesis = await getJson('/api/v1/genesis');
  const hash = pinned() ?? sessionPin ?? mod.genesisHash(genesis);
  sessionPin = hash;
  pin(hash);
  return { hash, genesis };
}

export async function verifyAccount(answer: Json): Promise<Verdict> {
  let genesisHash = pinned() ?? sessionPin ?? '';
  try {
    const mod = await loadModule();
    const a = await anchor(mod);
    genesisHash = a.hash;
    trusted ??= mod.trustFromGenesis(a.genesis, a.hash);
    const read = mod.verifyProvenRead(answer, trusted, { kind: 'account' });
    trusted = read.trusted;
    return { verified: true, genesisHash, height: read.height };
  } catch (e) {
    return { verified: false, genesisHash, error: e instanceof Error ? e.message : String(e) };
  }
}
