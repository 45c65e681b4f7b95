import type { Logger } from 'pino';
import type { ProposedBlock } from '../chain/chain.js';
import {
  encodeConsensusMessage,
  type BlockCodec,
  type CommitCertificate,
  type ConsensusEffect,
  type ConsensusEvidence,
  type ScheduleTimeoutEffect,
} from '../consensus/index.js';
import type { ConsensusWal } from './consensus-wal.js';
import { TAG_CONSENSUS, envelope } from './envelope.js';

export interface EffectDispatcherDeps {
  readonly wal: ConsensusWal;
  /** Votes travel in it. */
  readonly codec: BlockCodec;
  /** Proposals travel in it: peers hold the transactions' texts from the relay. */
  readonly compactCodec: BlockCodec;
  /** This node's validator address; null for a node that follows without voting. */
  readonly self: string | null;
  readonly log: Logger;
  broadcast(bytes: Uint8Array): void;
  /** Arms the machine's timer; it fires through the input queue. */
  scheduleTimeout(e: ScheduleTimeoutEffect): void;
  decide(block: ProposedBlock, cert: CommitCertificate): Promise<void>;
  evidence(ev: ConsensusEvidence): Promise<void>;
}

/** Carries out what the consensus driver asks of the process, in order. */
export class EffectDispatcher {
  constructor(private readonly d: EffectDispatcherDeps) {}

  /** `fromGossip`: the driver re-sent the round's messages, which are in the WAL already. */
  async dispatch(effects: ConsensusEffect[], fromGossip: boolean): Promise<void> {
    for (const e of effects) {
      switch (e.type) {
        case 'broadcastProposal': {
          const bytes = encodeConsensusMessage({ kind: 'proposal', proposal: e.proposal, block: e.block }, this.d.compactCodec);
          if (!fromGossip) await this.d.wal.appendProposal(e.block as ProposedBlock, bytes, e.proposal.proposal.proposer === this.d.self);
          this.d.broadcast(envelope(TAG_CONSENSUS, bytes));
          break;
        }
        case 'broadcastVote': {
          const bytes = encodeConsensusMessage({ kind: 'vote', vote: e.vote }, this.d.codec);
          // Our own vote is on disk (fsync) before it leaves the process.
          if (!fromGossip) await this.d.wal.append(bytes, e.vote.vote.validator === this.d.self);
          this.d.broadcast(envelope(TAG_CONSENSUS, bytes));
          break;
        }
        case 'scheduleTimeout':
          this.d.scheduleTimeout(e);
          break;
        case 'decide':
          await this.d.decide(e.value.block as ProposedBlock, e.certificate);
          break;
        case 'evidence':
          await this.d.evidence(e.evidence);
          break;
        case 'log':
          this.d.log[e.level === 'debug' ? 'debug' : e.level]({ ...(e.fields ?? {}) }, e.message);
          break;
      }
    }
  }
}
