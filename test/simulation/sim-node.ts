import { toHex0x } from '../../kernel/codec/hex.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import type { KeyPair, SignatureProvider } from '../../kernel/crypto/provider.js';
import { hashKey } from '../../kernel/consensus/bytes.js';
import { ConsensusDriver, type ConsensusEffect } from '../../kernel/consensus/driver.js';
import { signProposal, signVote } from '../../kernel/consensus/encoding.js';
import { TendermintMachine } from '../../kernel/consensus/machine.js';
import { LocalPrivValidator } from '../../kernel/consensus/priv-validator.js';
import type { TimeoutConfig } from '../../kernel/consensus/timeouts.js';
import type { CommitCertificate, ConsensusEvidence, SignedProposal, SignedVote, TimeoutKind } from '../../kernel/consensus/types.js';
import { decodeConsensusMessage, encodeConsensusMessage, evidenceToJson, type ConsensusMessage } from '../../kernel/consensus/wire.js';
import type { Prng } from '../../kernel/p2p/memory/prng.js';
import type { Scheduler } from '../../kernel/p2p/memory/scheduler.js';
import type { Transport } from '../../kernel/p2p/transport.js';
import { GENESIS_HASH, hashSimBlock, isSimBlock, makeBlock, simBlockCodec, type SimBlock } from './app.js';
import type { SetSchedule } from './set-schedule.js';
import { SimAppState, type SimAction } from './sim-app-state.js';

/**
 * Byzantine behaviours on top of the real machine:
 *  - silent: never sends anything (a crashed or withholding validator).
 *  - equivocate: sends one version of each vote and proposal to half of its peers and a
 *    conflicting, validly signed version to the other half (and both to its first peer).
 *  - invalid-proposer: runs correctly but proposes blocks the application rejects.
 */
export type Behaviour = 'honest' | 'silent' | 'equivocate' | 'invalid-proposer';

export interface Decision {
  /** The application state root after this block. */
  readonly stateRoot: string;
  readonly height: number;
  readonly round: number;
  readonly hash: string;
  readonly block: SimBlock;
  readonly certificate: CommitCertificate;
  readonly atMs: number;
}

export interface SimNodeOptions {
  readonly address: string;
  readonly keyPair: KeyPair;
  readonly provider: SignatureProvider;
  readonly chainId: string;
  /** The set of each height, derived by this node from the blocks it decides. */
  readonly schedule: SetSchedule;
  readonly transport: Transport;
  readonly scheduler: Scheduler;
  readonly behaviour: Behaviour;
  readonly seed: number;
  readonly prng: Prng;
  readonly timeouts?: Partial<TimeoutConfig>;
  readonly gossipIntervalMs: number;
  /** Governance outcomes a proposer puts in its block at each height (a scripted vote's tally). */
  readonly governance?: Readonly<Record<number, readonly SimAction[]>>;
}

const CATCHUP_BATCH = 16;
const CATCHUP_MIN_INTERVAL_MS = 100;
const MAX_PENDING_COMMITS = 64;

export class SimNode {
  readonly address: string;
  readonly behaviour: Behaviour;
  readonly schedule: SetSchedule;
  readonly decisions = new Map<number, Decision>();
  readonly evidence: ConsensusEvidence[] = [];
  readonly errors: string[] = [];
  height = 1;
  malformed = 0;
  readonly app = new SimAppState();

  private readonly o: SimNodeOptions;
  private readonly driver: ConsensusDriver;
  private lastHash = GENESIS_HASH;
  private readonly pendingCommits = new Map<number, { certificate: CommitCertificate; block: unknown }>();
  private readonly lastServed = new Map<string, number>();
  private lastProgress = '';
  // Equivocation bookkeeping: conflicting versions are cached so retransmissions stay consistent.
  private readonly altHashes = new Map<string, Uint8Array>();
  private readonly altVotes = new Map<string, SignedVote>();
  private readonly altProposals = new Map<string, { signed: SignedProposal; block: SimBlock }>();

  constructor(o: SimNodeOptions) {
    this.o = o;
    this.address = o.address;
    this.behaviour = o.behaviour;
    this.schedule = o.schedule;
    const machine = new TendermintMachine({
      chainId: o.chainId,
      selfAddress: o.address,
      provider: o.provider,
      hashValue: hashSimBlock,
      ...(o.timeouts !== undefined ? { timeouts: o.timeouts } : {}),
    });
    const signer = new LocalPrivValidator({ address: o.address, keyPair: o.keyPair, provider: o.provider });
    this.driver = new ConsensusDriver({
      machine,
      signer,
      clock: () => o.scheduler.now,
      host: {
        getValue: async (height, round) => {
          const evidence = this.schedule.proposable(this.evidence, height, evidenceToJson);
          const app = { prevStateRoot: this.app.root(), actions: o.governance?.[height] ?? [], payloadChars: this.app.payloadChars() };
          const block = makeBlock(o.seed, height, round, o.address, this.lastHash, this.behaviour === 'invalid-proposer', '', evidence, app);
          return { hash: hashSimBlock(block), block };
        },
        // The block extends our chain from our state, with the payload length the parameter in force says.
        validateValue: async (height, _round, block) =>
          isSimBlock(block) &&
          block.height === height &&
          block.prevHash === this.lastHash &&
          !block.invalid &&
          this.schedule.evidenceProblem(block.evidence, height) === null &&
          block.prevStateRoot === this.app.root() &&
          block.payload.length === this.app.payloadChars(),
      },
    });
  }

  boot(): void {
    if (this.behaviour === 'silent') return;
    this.o.transport.onMessage((from, bytes) => this.onMessage(from, bytes));
    this.o.scheduler.schedule(0, async () => this.perform(await this.startHeight()));
    this.o.scheduler.schedule(this.o.gossipIntervalMs, () => this.gossipTick());
  }

  private async onMessage(from: string, bytes: Uint8Array): Promise<void> {
    const m = decodeConsensusMessage(bytes, simBlockCodec);
    if (m === null) {
      this.malformed++;
      return;
    }
    switch (m.kind) {
      case 'vote':
        if (m.vote.vote.height < this.height) return this.serveCatchup(from, m.vote.vote.height);
        return this.perform(await this.driver.onVote(m.vote));
      case 'proposal':
        if (m.proposal.proposal.height < this.height) return this.serveCatchup(from, m.proposal.proposal.height);
        return this.perform(await this.driver.onProposal(m.proposal, m.block));
      case 'commit': {
        const h = m.certificate.height;
        if (h === this.height) return this.perform(await this.driver.onCommit(m.certificate, m.block));
        if (h > this.height && this.pendingCommits.size < MAX_PENDING_COMMITS) this.pendingCommits.set(h, { certificate: m.certificate, block: m.block });
        return;
      }
    }
  }

  /** The machine at this node's height, with that height's set and the next one's. */
  private startHeight(): Promise<ConsensusEffect[]> {
    return this.driver.start(this.height, this.schedule.setAt(this.height), this.schedule.setAt(this.height + 1));
  }

  private async onTimeout(kind: TimeoutKind, height: number, round: number): Promise<void> {
    if (height !== this.height) return;
    await this.perform(await this.driver.onTimeout(kind, height, round));
  }

  private async gossipTick(): Promise<void> {
    const s = this.driver.state();
    const progress = `${this.height}/${s.round}/${s.step}`;
    // Only a node that made no progress for a whole interval re-sends: a healthy network then
    // carries no retransmissions at all.
    if (progress === this.lastProgress) await this.perform(await this.driver.gossip());
    this.lastProgress = progress;
    this.o.scheduler.schedule(this.o.gossipIntervalMs, () => this.gossipTick());
  }

  /** A peer sent a message for a height we already decided: send it the decided blocks it lacks. */
  private serveCatchup(peer: string, peerHeight: number): void {
    const now = this.o.scheduler.now;
    const last = this.lastServed.get(peer);
    if (last !== undefined && now - last < CATCHUP_MIN_INTERVAL_MS) return;
    this.lastServed.set(peer, now);
    for (let h = peerHeight; h < Math.min(peerHeight + CATCHUP_BATCH, this.height); h++) {
      const d = this.decisions.get(h);
      if (d === undefined) continue;
      this.o.transport.send(peer, encodeConsensusMessage({ kind: 'commit', certificate: d.certificate, block: d.block }, simBlockCodec));
    }
  }

  private async perform(effects: ConsensusEffect[]): Promise<void> {
    for (const e of effects) {
      switch (e.type) {
        case 'broadcastVote':
          this.sendVote(e.vote);
          break;
        case 'broadcastProposal':
          this.sendProposal(e.proposal, e.block);
          break;
        case 'scheduleTimeout':
          this.o.scheduler.schedule(e.durationMs, () => this.onTimeout(e.kind, e.height, e.round));
          break;
        case 'decide':
          await this.commit(e.height, e.round, e.value.hash, e.value.block, e.certificate);
          break;
        case 'evidence':
          this.evidence.push(e.evidence);
          break;
        case 'log':
          if (e.level === 'error') this.errors.push(`${e.message} ${JSON.stringify(e.fields ?? {})}`);
          break;
      }
    }
  }

  private async commit(height: number, round: number, hash: Uint8Array, block: unknown, certificate: CommitCertificate): Promise<void> {
    if (height !== this.height || !isSimBlock(block)) {
      this.errors.push(`decide for unexpected height ${height} (at ${this.height}) or block shape`);
      return;
    }
    const hex = toHex0x(hash);
    this.app.apply(height, block.actions);
    this.decisions.set(height, { height, round, hash: hex, block, certificate, atMs: this.o.scheduler.now, stateRoot: this.app.root() });
    this.lastHash = hex;
    this.schedule.commit(block);
    this.height = height + 1;
    for (const h of [...this.pendingCommits.keys()]) if (h < this.height) this.pendingCommits.delete(h);
    await this.perform(await this.startHeight());
    const next = this.pendingCommits.get(this.height);
    if (next !== undefined) {
      this.pendingCommits.delete(this.height);
      await this.perform(await this.driver.onCommit(next.certificate, next.block));
    }
  }

  // ------------------------------------------------------------- outbound, honest or not

  private send(peers: readonly string[], m: ConsensusMessage): void {
    if (peers.length === 0) return;
    const bytes = encodeConsensusMessage(m, simBlockCodec);
    for (const p of peers) this.o.transport.send(p, bytes);
  }

  /** Peers that get the conflicting version: the odd-indexed ones, plus the first (which then sees both). */
  private split(): { real: string[]; alt: string[] } {
    const peers = this.o.transport.peers();
    const real = peers.filter((_, i) => i % 2 === 0);
    const alt = peers.filter((_, i) => i % 2 === 1 || i === 0);
    return { real, alt };
  }

  private sendVote(vote: SignedVote): void {
    // Relayed votes of other validators go out unchanged: only our own can be equivocated.
    if (this.behaviour !== 'equivocate' || vote.vote.validator !== this.address) {
      this.o.transport.broadcast(encodeConsensusMessage({ kind: 'vote', vote }, simBlockCodec));
      return;
    }
    const v = vote.vote;
    const slot = `${v.type}|${v.height}|${v.round}`;
    let alt = this.altVotes.get(slot);
    if (alt === undefined) {
      // Vote for the conflicting block when we proposed one, else for nil or a random hash.
      const altHash = v.blockHash === null ? this.o.prng.bytes(32) : (this.altHashes.get(hashKey(v.blockHash)) ?? null);
      alt = signVote(this.o.provider, this.o.keyPair.secretKey, this.o.chainId, { ...v, blockHash: altHash });
      this.altVotes.set(slot, alt);
    }
    const { real, alt: altPeers } = this.split();
    this.send(real, { kind: 'vote', vote });
    this.send(altPeers, { kind: 'vote', vote: alt });
  }

  private sendProposal(proposal: SignedProposal, block: unknown): void {
    const p = proposal.proposal;
    if (this.behaviour !== 'equivocate' || p.proposer !== this.address || !isSimBlock(block)) {
      this.o.transport.broadcast(encodeConsensusMessage({ kind: 'proposal', proposal, block }, simBlockCodec));
      return;
    }
    const slot = `${p.height}|${p.round}`;
    let alt = this.altProposals.get(slot);
    if (alt === undefined) {
      // A second block that is just as valid (same parent), so correct nodes split between them.
      const altBlock = makeBlock(this.o.seed, p.height, p.round, this.address, block.prevHash, block.invalid, 'equivocation', block.evidence, { prevStateRoot: block.prevStateRoot, actions: block.actions, payloadChars: block.payload.length });
      const altHash = hashSimBlock(altBlock);
      this.altHashes.set(hashKey(p.blockHash), altHash);
      // Offered as a fresh value (pol_round -1): correct nodes that are not locked will prevote
      // it, so only the locking rules stand between this and two decisions.
      const altProposal = { ...p, polRound: -1, blockHash: altHash };
      alt = { signed: signProposal(this.o.provider, this.o.keyPair.secretKey, this.o.chainId, altProposal), block: altBlock };
      this.altProposals.set(slot, alt);
    }
    const { real, alt: altPeers } = this.split();
    this.send(real, { kind: 'proposal', proposal, block });
    this.send(altPeers, { kind: 'proposal', proposal: alt.signed, block: alt.block });
  }
}

/** Deterministic validator key seed (independent of the run seed, so keys can be cached). */
export function validatorKeySeed(index: number): Uint8Array {
  return sha3(`sim-validator-key|${index}`);
}
