import type { Logger } from 'pino';
import { EVIDENCE_PER_PROPOSAL, type Chain, type EvidenceVerifier } from '../chain/chain.js';
import { EVIDENCE_WINDOW_PARAM, evidenceWindowProblem } from '../chain/evidence-window.js';
import type { Evidence } from '../model/types.js';
import { sha3Hex0x } from '../crypto/hash.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { ValidatorSet, evidenceFromJson, evidenceId, evidenceToJson, verifyEvidence, type ConsensusEvidence, type Validator } from '../consensus/index.js';
import { TAG_EVIDENCE, envelope } from './envelope.js';

/** Equivocations held per validator, and in all, until a block includes them. */
const EVIDENCE_PER_VALIDATOR = 4;
const EVIDENCE_POOL_MAX = 256;

export interface EvidencePoolDeps {
  readonly chain: Pick<Chain, 'chainId' | 'head' | 'queries'>;
  readonly provider: SignatureProvider;
  readonly log: Logger;
  broadcast(bytes: Uint8Array): void;
}

/**
 * Double-sign evidence this node verified and no block has carried yet, for its own proposals.
 * Evidence is judged as every validator judges a block carrying it (`Chain.validate`): against
 * the key the accused held at the evidence's own height, so a validator that has left the set
 * since is still answerable, and only within `slash_evidence_window`.
 */
export class EvidencePool {
  /** Verified evidence not yet in a block. */
  private readonly pool = new Map<string, Evidence>();

  constructor(private readonly d: EvidencePoolDeps) {}

  /** Evidence seen by the machine here (`gossip`: passed on to the peers) or received from a peer. */
  async add(ev: ConsensusEvidence, gossip: boolean): Promise<void> {
    const item = chainEvidence(ev);
    if (this.pool.has(item.hash) || (await this.d.chain.queries.evidenceApplied(item.hash))) return;
    // One validator's equivocations are kept a few at a time: each is signed by it, so it could
    // otherwise mint evidence for every round it cares to sign in.
    let fromValidator = 0;
    for (const held of this.pool.values()) if (held.validator === item.validator) fromValidator++;
    if (fromValidator >= EVIDENCE_PER_VALIDATOR || this.pool.size >= EVIDENCE_POOL_MAX) return;
    const outside = evidenceWindowProblem(item.height, this.d.chain.head.height + 1, await this.d.chain.queries.param(EVIDENCE_WINDOW_PARAM));
    const signer = outside ? undefined : await this.d.chain.queries.validatorAt(item.validator, item.height);
    const reason = outside ?? (signer === undefined ? `${item.validator} was not a validator at height ${item.height}` : this.problem(ev, signer));
    if (reason !== null) {
      this.d.log.warn({ reason }, 'evidence does not verify; ignored');
      return;
    }
    this.pool.set(item.hash, item);
    this.d.log.warn({ validator: item.validator, height: item.height, round: item.round, evidence: item.hash }, 'double-sign evidence recorded');
    if (gossip) this.d.broadcast(envelope(TAG_EVIDENCE, evidenceToJson(ev)));
  }

  /**
   * The pool's evidence for the next block. What a block applied, or what has aged out of the
   * window, leaves the pool: it would make every proposal carrying it invalid on every node.
   */
  async proposable(): Promise<Evidence[]> {
    const height = this.d.chain.head.height + 1;
    const windowBlocks = await this.d.chain.queries.param(EVIDENCE_WINDOW_PARAM);
    const out: Evidence[] = [];
    for (const [hash, item] of [...this.pool.entries()]) {
      // Applied already (a peer gossiped it again after its block): it would never leave.
      const stale = (await this.d.chain.queries.evidenceApplied(hash)) ? 'applied' : evidenceWindowProblem(item.height, height, windowBlocks);
      if (stale !== null) {
        this.pool.delete(hash);
        this.d.log.info({ evidence: hash, validator: item.validator, reason: stale }, 'evidence can no longer be included; dropped');
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

  /** Why the evidence does not prove that `signer` equivocated, or null. */
  private problem(ev: ConsensusEvidence, signer: Validator): string | null {
    return evidenceProblem(ev, signer, this.d.chain.chainId, this.d.provider);
  }
}

/** Why the evidence does not prove that `signer` equivocated on chain `chainId`, or null. */
function evidenceProblem(ev: ConsensusEvidence, signer: Validator, chainId: string, provider: SignatureProvider): string | null {
  const check = verifyEvidence(ev, new ValidatorSet([signer]), chainId, provider);
  return check.ok ? null : check.reason;
}

/**
 * The chain's check of evidence in someone else's proposal (`ChainDeps.evidenceVerifier`): the
 * same judgement the pool makes of gossiped evidence, so a block is refused for evidence this
 * node would not have pooled.
 */
export function proposalEvidenceVerifier(chainId: string, provider: SignatureProvider): EvidenceVerifier {
  return async (raw, signer) => {
    const ev = evidenceFromJson(raw);
    return ev !== null && evidenceProblem(ev, signer, chainId, provider) === null ? chainEvidence(ev) : null;
  };
}

/** The chain's record of a proof: what a block carries and the `evidence` hook sees. */
export function chainEvidence(ev: ConsensusEvidence): Evidence {
  const v = ev.voteA.vote;
  return { hash: sha3Hex0x(evidenceId(ev)), kind: 'duplicate-vote', validator: v.validator, height: v.height, round: v.round, raw: evidenceToJson(ev) };
}
