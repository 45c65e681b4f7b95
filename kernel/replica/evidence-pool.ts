import type { Logger } from 'pino';
import { EVIDENCE_PER_PROPOSAL, type Chain } from '../chain/chain.js';
import type { Evidence } from '../chain/types.js';
import { sha3Hex0x } from '../crypto/hash.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { bytesEqual } from '../consensus/bytes.js';
import { evidenceFromJson, evidenceId, evidenceToJson, verifyEvidence, type ConsensusEvidence, type ValidatorSet } from '../consensus/index.js';
import { TAG_EVIDENCE, envelope } from './envelope.js';

/** Equivocations held per validator, and in all, until a block includes them. */
const EVIDENCE_PER_VALIDATOR = 4;
const EVIDENCE_POOL_MAX = 256;

export interface EvidencePoolDeps {
  readonly chain: Pick<Chain, 'chainId' | 'evidenceApplied'>;
  readonly provider: SignatureProvider;
  readonly log: Logger;
  /** The working height's validator set: evidence is verified, and proposed, against it. */
  validators(): ValidatorSet;
  broadcast(bytes: Uint8Array): void;
}

/** Double-sign evidence this node verified and no block has carried yet, for its own proposals. */
export class EvidencePool {
  /** Verified evidence not yet in a block, with the key of the validator it was verified against. */
  private readonly pool = new Map<string, { readonly item: Evidence; readonly publicKey: Uint8Array }>();

  constructor(private readonly d: EvidencePoolDeps) {}

  /** Evidence seen by the machine here (`gossip`: passed on to the peers) or received from a peer. */
  async add(ev: ConsensusEvidence, gossip: boolean): Promise<void> {
    const item = toChainEvidence(ev);
    if (this.pool.has(item.hash) || (await this.d.chain.evidenceApplied(item.hash))) return;
    // One validator's equivocations are kept a few at a time: each is signed by it, so it could
    // otherwise mint evidence for every round it cares to sign in.
    let fromValidator = 0;
    for (const held of this.pool.values()) if (held.item.validator === item.validator) fromValidator++;
    if (fromValidator >= EVIDENCE_PER_VALIDATOR || this.pool.size >= EVIDENCE_POOL_MAX) return;
    const validators = this.d.validators();
    const check = verifyEvidence(ev, validators, this.d.chain.chainId, this.d.provider);
    if (!check.ok) {
      this.d.log.warn({ reason: check.reason }, 'evidence does not verify; ignored');
      return;
    }
    this.pool.set(item.hash, { item, publicKey: validators.publicKeyOf(item.validator)! });
    this.d.log.warn({ validator: item.validator, height: item.height, round: item.round, evidence: item.hash }, 'double-sign evidence recorded');
    if (gossip) this.d.broadcast(envelope(TAG_EVIDENCE, evidenceToJson(ev)));
  }

  /**
   * The pool's evidence that still verifies against this height's validator set, which is what
   * every validator checks a proposal's evidence against. Evidence of a validator that has since
   * left the set (jailed, unbonded) would make every proposal carrying it invalid on every node,
   * round after round, so it leaves the pool instead of the chain stalling on it.
   */
  async proposable(): Promise<Evidence[]> {
    const out: Evidence[] = [];
    for (const [hash, { item, publicKey }] of [...this.pool.entries()]) {
      // Applied already (a peer gossiped it again after its block): it would never leave.
      if (await this.d.chain.evidenceApplied(hash)) {
        this.pool.delete(hash);
        continue;
      }
      // Its signatures verified against this key when it entered the pool; the same key still in
      // the set means they still do, without paying for two verifications per proposal.
      const now = this.d.validators().publicKeyOf(item.validator);
      if (now === undefined || !bytesEqual(now, publicKey)) {
        this.pool.delete(hash);
        this.d.log.info({ evidence: hash, validator: item.validator }, 'evidence no longer verifies against the validator set; dropped');
        continue;
      }
      out.push(item);
      if (out.length === EVIDENCE_PER_PROPOSAL) break;
    }
    return out;
  }

  /** A committed block's evidence leaves the pool. */
  committed(items: readonly Evidence[]): void {
    for (const ev of items) this.pool.delete(ev.hash);
  }

  /** The chain's check of evidence in someone else's proposal (`Chain.evidenceVerifier`). */
  async verify(raw: unknown): Promise<Evidence | null> {
    const ev = evidenceFromJson(raw);
    if (!ev) return null;
    return verifyEvidence(ev, this.d.validators(), this.d.chain.chainId, this.d.provider).ok ? toChainEvidence(ev) : null;
  }
}

function toChainEvidence(ev: ConsensusEvidence): Evidence {
  const v = ev.voteA.vote;
  return { hash: sha3Hex0x(evidenceId(ev)), kind: 'duplicate-vote', validator: v.validator, height: v.height, round: v.round, raw: evidenceToJson(ev) };
}
