import type { DecideEffect, EvidenceEffect, LogEffect, MachineEffect, MachineState, ScheduleTimeoutEffect, TendermintMachine } from './machine.js';
import type { PrivValidator } from './priv-validator.js';
import type { CommitCertificate, SignedProposal, SignedVote, TimeoutKind, Value } from './types.js';
import type { ValidatorSet } from './validator-set.js';

/**
 * The application side of consensus (ABCI++): the proposer's PrepareProposal and everybody's
 * ProcessProposal. Both must be deterministic functions of (height, block) and chain state.
 */
export interface ValueHost {
  /** A new block for (height, round); `hash` must equal the machine's `hashValue(block)`. */
  getValue(height: number, round: number): Promise<Value>;
  /**
   * valid(v). The block's hash has already been checked against `blockHash`; the answer is cached
   * per hash for the height, so it must not depend on the round.
   */
  validateValue(height: number, round: number, block: unknown, blockHash: Uint8Array): Promise<boolean>;
}

/** What the host must do: send, arm a timer, commit, report misbehaviour, log. */
export type ConsensusEffect =
  | { readonly type: 'broadcastProposal'; readonly proposal: SignedProposal; readonly block: unknown }
  | { readonly type: 'broadcastVote'; readonly vote: SignedVote }
  | ScheduleTimeoutEffect
  | DecideEffect
  | EvidenceEffect
  | LogEffect;

export interface ConsensusDriverOptions {
  readonly machine: TendermintMachine;
  /** Null for a node that follows consensus without a validator key. */
  readonly signer: PrivValidator | null;
  readonly host: ValueHost;
  /** Source of proposal timestamps (ms); omitted from proposals when absent. Never read by the rules. */
  readonly clock?: () => number;
}

/**
 * Connects the synchronous machine to the async world: answers `requestValue` and
 * `requestValidation` through the `ValueHost`, and `signProposal` / `signVote` through the
 * `PrivValidator` (which persists its double-sign guard before returning), then feeds our own
 * signed messages back into the machine. Inputs are serialised: one input and everything it
 * causes finish before the next input starts, which keeps runs deterministic under simulation
 * and keeps the signer's requests in the machine's order (the guard refuses anything else).
 */
export class ConsensusDriver {
  readonly machine: TendermintMachine;
  private readonly signer: PrivValidator | null;
  private readonly host: ValueHost;
  private readonly clock: (() => number) | undefined;
  private busy = false;
  private readonly waiting: (() => void)[] = [];
  private ownHeight = -1;
  private ownProposals: { readonly signed: SignedProposal; readonly block: unknown }[] = [];
  private ownVotes: SignedVote[] = [];

  constructor(opts: ConsensusDriverOptions) {
    this.machine = opts.machine;
    this.signer = opts.signer;
    this.host = opts.host;
    this.clock = opts.clock;
    if (this.signer !== null && this.signer.address !== this.machine.selfAddress) {
      throw new Error(`signer ${this.signer.address} does not match machine address ${String(this.machine.selfAddress)}`);
    }
  }

  /** `next`: the set of height + 1, when the host knows it (see `TendermintMachine.start`). */
  start(height: number, validators: ValidatorSet, next?: ValidatorSet): Promise<ConsensusEffect[]> {
    return this.serialised(() => {
      this.ownHeight = height;
      this.ownProposals = [];
      this.ownVotes = [];
      return this.machine.start(height, validators, next);
    });
  }

  /** `timely`: see `TendermintMachine.onProposal`. */
  onProposal(proposal: SignedProposal, block: unknown, timely = true): Promise<ConsensusEffect[]> {
    return this.serialised(() => this.machine.onProposal(proposal, block, timely));
  }

  onVote(vote: SignedVote): Promise<ConsensusEffect[]> {
    return this.serialised(() => this.machine.onVote(vote));
  }

  onTimeout(kind: TimeoutKind, height: number, round: number): Promise<ConsensusEffect[]> {
    return this.serialised(() => this.machine.onTimeout(kind, height, round));
  }

  /** Validations the application failed to answer, asked again (see `TendermintMachine.retryValidations`). */
  retryValidations(): Promise<ConsensusEffect[]> {
    return this.serialised(() => this.machine.retryValidations());
  }

  /** A decided block with its commit certificate from a peer (catch-up). */
  onCommit(certificate: CommitCertificate, block: unknown): Promise<ConsensusEffect[]> {
    return this.serialised(() => this.machine.onCommit(certificate, block));
  }

  /**
   * Messages worth re-sending while the height is not decided (a host calls this when it sees no
   * progress for a while): our own proposal of the current round and our votes of this round and
   * the previous one, plus the machine's relay set (see `TendermintMachine.relayMessages`). Over
   * a lossy network this is what turns the paper's reliable-gossip assumption into practice.
   * Older rounds are left out: a peer still in one is pulled forward by line 55 from the current
   * round's messages, and re-sending every round would grow without bound.
   */
  gossip(): Promise<ConsensusEffect[]> {
    return this.serialised(() => {
      const { round } = this.machine.state();
      const relay = this.machine.relayMessages();
      const out: ConsensusEffect[] = [];
      const seenVotes = new Set<SignedVote>();
      const seenProposals = new Set<SignedProposal>();
      const own = this.ownProposals.filter((p) => p.signed.proposal.round === round);
      for (const p of [...own, ...relay.proposals]) {
        if (seenProposals.has(p.signed)) continue;
        seenProposals.add(p.signed);
        out.push({ type: 'broadcastProposal', proposal: p.signed, block: p.block });
      }
      const recent = this.ownVotes.filter((v) => v.vote.round + 1 >= round);
      for (const v of [...recent, ...relay.votes]) {
        if (seenVotes.has(v)) continue;
        seenVotes.add(v);
        out.push({ type: 'broadcastVote', vote: v });
      }
      return out;
    }, false);
  }

  state(): MachineState {
    return this.machine.state();
  }

  /**
   * Runs inputs one at a time, in call order. An input whose effects need no answer from the
   * host or the signer (most votes) completes synchronously, without the promise machinery.
   */
  private serialised(input: () => MachineEffect[] | ConsensusEffect[], process = true): Promise<ConsensusEffect[]> {
    if (this.busy) {
      return new Promise((resolve, reject) => this.waiting.push(() => this.runNow(input, process).then(resolve, reject)));
    }
    return this.runNow(input, process);
  }

  private runNow(input: () => MachineEffect[] | ConsensusEffect[], process: boolean): Promise<ConsensusEffect[]> {
    this.busy = true;
    let effects: MachineEffect[] | ConsensusEffect[];
    try {
      effects = input();
    } catch (err) {
      this.release();
      return Promise.reject(err);
    }
    if (!process || !(effects as MachineEffect[]).some(needsAnswer)) {
      this.release();
      return Promise.resolve(effects as ConsensusEffect[]);
    }
    return this.process(effects as MachineEffect[]).finally(() => this.release());
  }

  private release(): void {
    this.busy = false;
    const next = this.waiting.shift();
    if (next !== undefined) next();
  }

  /** Works through the effects in order; answers fed back to the machine append their effects to the queue. */
  private async process(initial: MachineEffect[]): Promise<ConsensusEffect[]> {
    const out: ConsensusEffect[] = [];
    const pending: MachineEffect[] = [...initial];
    for (let i = 0; i < pending.length; i++) {
      const e = pending[i] as MachineEffect;
      switch (e.type) {
        case 'requestValue': {
          let value: Value;
          try {
            value = await this.host.getValue(e.height, e.round);
          } catch (err) {
            out.push(logError('getValue failed; not proposing this round', err, e.height, e.round));
            break;
          }
          pending.push(...this.machine.onValue(e.height, e.round, value));
          break;
        }
        case 'requestValidation': {
          let valid: boolean;
          try {
            valid = await this.host.validateValue(e.height, e.round, e.block, e.blockHash);
          } catch (err) {
            // A failure in the application must not make us vote for the block, nor brand it
            // invalid for the whole height: the machine asks again later.
            out.push(logError('validateValue threw; the block stays unvalidated for now', err, e.height, e.round));
            pending.push(...this.machine.onValidationError(e.height, e.blockHash));
            break;
          }
          pending.push(...this.machine.onValidation(e.height, e.blockHash, valid));
          break;
        }
        case 'signProposal': {
          if (this.signer === null) break;
          const proposal = this.clock === undefined ? e.proposal : { ...e.proposal, timestampMs: this.clock() };
          let signed: SignedProposal;
          try {
            signed = await this.signer.signProposal(this.machine.chainId, proposal);
          } catch (err) {
            out.push(logError('signer refused the proposal', err, proposal.height, proposal.round));
            break;
          }
          if (proposal.height === this.ownHeight) this.ownProposals.push({ signed, block: e.block });
          out.push({ type: 'broadcastProposal', proposal: signed, block: e.block });
          pending.push(...this.machine.onOwnProposal(signed, e.block));
          break;
        }
        case 'signVote': {
          if (this.signer === null) break;
          let signed: SignedVote;
          try {
            signed = await this.signer.signVote(this.machine.chainId, e.vote);
          } catch (err) {
            out.push(logError('signer refused the vote', err, e.vote.height, e.vote.round));
            break;
          }
          if (e.vote.height === this.ownHeight) this.ownVotes.push(signed);
          out.push({ type: 'broadcastVote', vote: signed });
          pending.push(...this.machine.onOwnVote(signed));
          break;
        }
        default:
          out.push(e);
      }
    }
    return out;
  }
}

function needsAnswer(e: MachineEffect): boolean {
  return e.type === 'requestValue' || e.type === 'requestValidation' || e.type === 'signProposal' || e.type === 'signVote';
}

function logError(message: string, err: unknown, height: number, round: number): LogEffect {
  const detail = err instanceof Error ? err.message : String(err);
  return { type: 'log', level: 'error', message, fields: { height, round, error: detail } };
}
