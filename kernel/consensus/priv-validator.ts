import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import { hashKey } from './bytes.js';
import { proposalSignBytes, voteSignBytes } from './encoding.js';
import { LastSignedGuard, type LastSignedState, type SignStep } from './last-signed-guard.js';
import type { Proposal, SignedProposal, SignedVote, Vote } from './types.js';

/**
 * The signer the consensus driver calls. Async because a real one persists the double-sign
 * guard (fsync) or talks to a remote signer / HSM before returning; it rejects (throws) rather
 * than sign anything that conflicts with what it already signed.
 */
export interface PrivValidator {
  readonly address: string;
  readonly publicKey: Uint8Array;
  signVote(chainId: string, vote: Vote): Promise<SignedVote>;
  signProposal(chainId: string, proposal: Proposal): Promise<SignedProposal>;
}

export class DoubleSignRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DoubleSignRefusedError';
  }
}

export interface LocalPrivValidatorOptions {
  readonly address: string;
  readonly keyPair: KeyPair;
  readonly provider: SignatureProvider;
  /** Restored guard state; a fresh guard when absent. */
  readonly guard?: LastSignedGuard;
  /**
   * Called with the updated guard state after each new signature and before it is returned.
   * The node writes it durably (fsync); if this throws, the signature is not released.
   */
  readonly persist?: (state: LastSignedState) => Promise<void>;
  /**
   * Makes the signature off the calling thread (the node passes a worker pool); the provider's
   * own sign is used when absent. It may sign hedged (fresh randomness per call): a request the
   * guard has seen is answered with the recorded signature, never signed again, so a restarted
   * validator re-sends the same bytes either way.
   */
  readonly signAsync?: (message: Uint8Array, secretKey: Uint8Array) => Promise<Uint8Array>;
}

/** A key held in this process, behind a `LastSignedGuard`. */
export class LocalPrivValidator implements PrivValidator {
  readonly address: string;
  readonly publicKey: Uint8Array;
  readonly guard: LastSignedGuard;
  private readonly keyPair: KeyPair;
  private readonly provider: SignatureProvider;
  private readonly persist: ((state: LastSignedState) => Promise<void>) | undefined;
  private readonly signAsync: ((message: Uint8Array, secretKey: Uint8Array) => Promise<Uint8Array>) | undefined;
  // Check-record-persist must be atomic per request: two concurrent requests for one slot
  // could otherwise both pass `check` before either records.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: LocalPrivValidatorOptions) {
    this.address = opts.address;
    this.publicKey = opts.keyPair.publicKey;
    this.keyPair = opts.keyPair;
    this.provider = opts.provider;
    this.guard = opts.guard ?? new LastSignedGuard();
    this.persist = opts.persist;
    this.signAsync = opts.signAsync;
  }

  signVote(chainId: string, vote: Vote): Promise<SignedVote> {
    if (vote.validator !== this.address) return Promise.reject(new Error(`vote names ${vote.validator}, signer is ${this.address}`));
    let bytes: Uint8Array;
    try {
      bytes = voteSignBytes(chainId, vote);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.serialised(async () => {
      const signature = await this.guarded(vote.height, vote.round, vote.type, bytes, hashKey(vote.blockHash));
      return { vote, signature };
    });
  }

  signProposal(chainId: string, proposal: Proposal): Promise<SignedProposal> {
    if (proposal.proposer !== this.address) return Promise.reject(new Error(`proposal names ${proposal.proposer}, signer is ${this.address}`));
    let bytes: Uint8Array;
    try {
      bytes = proposalSignBytes(chainId, proposal);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.serialised(async () => {
      const signature = await this.guarded(proposal.height, proposal.round, 'proposal', bytes, hashKey(proposal.blockHash));
      return { proposal, signature };
    });
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async guarded(height: number, round: number, step: SignStep, bytes: Uint8Array, target: string): Promise<Uint8Array> {
    const decision = this.guard.check(height, round, step, bytes);
    if (decision.kind === 'refuse') throw new DoubleSignRefusedError(decision.reason);
    if (decision.kind === 'reuse') {
      // A record whose persisting failed is written before its signature is handed out at last:
      // after a restart the guard on disk must know every signature that left this process.
      await this.persistIfNeeded();
      return decision.signature;
    }
    // Requests are serialised, so no other check can pass between this one and its record below.
    const signature = this.signAsync ? await this.signAsync(bytes, this.keyPair.secretKey) : this.provider.sign(bytes, this.keyPair.secretKey);
    // Recorded in memory first: even if persisting fails, this process will not sign a conflict.
    this.guard.record(height, round, step, bytes, target, signature);
    this.unpersisted = true;
    await this.persistIfNeeded();
    return signature;
  }

  private async persistIfNeeded(): Promise<void> {
    if (!this.unpersisted || this.persist === undefined) return;
    await this.persist(this.guard.toJSON());
    this.unpersisted = false;
  }

  /** The in-memory guard holds a record the persisted state does not (its write failed). */
  private unpersisted = false;
}
