import type { SignatureProvider, KeyPair } from '../crypto/provider.js';

/**
 * Statements a plugin may have the node sign with its own key, by domain. The key is the one that
 * signs the node's consensus votes, so it signs only texts that open with one of these tags and
 * `|`: no vote, proposal or commit (their sign bytes open with other tags) can be made through it.
 */
export const NODE_STATEMENT_DOMAINS = Object.freeze(['ch-ibc-attest-v1'] as const);
export type NodeStatementDomain = (typeof NODE_STATEMENT_DOMAINS)[number];

/** The domains checked at signing: a private copy, so no plugin can widen what the consensus key signs. */
const SIGNABLE_DOMAINS: ReadonlySet<string> = new Set(NODE_STATEMENT_DOMAINS);

/** The node's own key as plugins see it (`api.services.nodeKey`): its address and public key, and statements signed with it. */
export interface NodeKey {
  /** The `.node` address the node's key file names. */
  readonly address: string;
  readonly publicKey: Uint8Array;
  /** ML-DSA-65 over the UTF-8 of `text`, which must open with `<domain>|` (decisions.md §48's attestation). */
  signStatement(domain: NodeStatementDomain, text: string): Uint8Array;
}

/**
 * Statements only the kernel has its consensus key sign, never a plugin: the light-client commit
 * header (decisions.md §64). A plugin able to sign `ch-pq-lc-v1|…` could sign a header for a
 * block that was never committed and mint on a counterparty, so this set is apart from
 * NODE_STATEMENT_DOMAINS and frozen the same way.
 */
const KERNEL_SIGNABLE_DOMAINS: ReadonlySet<string> = new Set(['ch-pq-lc-v1']);

/** Signs a kernel statement (KERNEL_SIGNABLE_DOMAINS) with the node's consensus key. */
export type KernelStatementSigner = (domain: string, text: string) => Uint8Array;

export function kernelStatementSigner(keys: KeyPair, provider: Pick<SignatureProvider, 'sign'>): KernelStatementSigner {
  return (domain, text) => {
    if (!KERNEL_SIGNABLE_DOMAINS.has(domain) || !text.startsWith(`${domain}|`)) throw new Error(`the kernel signs only statements that open with one of ${[...KERNEL_SIGNABLE_DOMAINS].join(', ')} and "|"`);
    return provider.sign(new TextEncoder().encode(text), keys.secretKey);
  };
}

export function nodeKey(address: string, keys: KeyPair, provider: Pick<SignatureProvider, 'sign'>): NodeKey {
  return {
    address,
    publicKey: keys.publicKey,
    signStatement(domain, text) {
      if (!SIGNABLE_DOMAINS.has(domain) || !text.startsWith(`${domain}|`)) throw new Error(`the node signs only statements that open with one of ${[...SIGNABLE_DOMAINS].join(', ')} and "|"`);
      return provider.sign(new TextEncoder().encode(text), keys.secretKey);
    },
  };
}
