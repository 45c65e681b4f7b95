import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Chain, ProposedBlock } from '../chain/chain.js';
import { blockHash } from '../chain/block-hash.js';
import { parseHex, toHex0x } from '../codec/hex.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import type { Transport } from '../p2p/transport.js';
import {
  ConsensusDriver,
  LocalPrivValidator,
  TendermintMachine,
  ValidatorSet,
  consensusMessageHeight,
  decodeConsensusMessage,
  evidenceFromJson,
  proposalSignBytes,
  type BlockCodec,
  type CommitCertificate,
  type ConsensusMessage,
  type ScheduleTimeoutEffect,
  type SignedProposal,
  type TimeoutConfig,
} from '../consensus/index.js';
import type { ConsensusStatus, PeerView } from './consensus-status.js';
import { nextBlockDue, type BlockPace } from './pace.js';
import { MissingTransactions, proposedBlockCodec, withoutMissing } from './block-codec.js';
import { DEFAULT_TIMESTAMP_PRECISION_MS } from './block-time.js';
import { CatchUp } from './catch-up.js';
import { decidedCommit } from './decided-commit.js';
import { ChainValueHost } from './chain-value-host.js';
import { ConsensusWal } from './consensus-wal.js';
import { EffectDispatcher } from './effect-dispatcher.js';
import {
  TAG_CONSENSUS,
  TAG_EVIDENCE,
  TAG_LC_HEADER_SIGNATURE,
  TAG_STATUS,
  TAG_SYNC_REQUEST,
  TAG_TX,
  TAG_TX_BATCH,
  TAG_TX_REQUEST,
  TAG_TX_TEXTS,
  openEnvelope,
  parseJsonBody,
  parseStatus,
  parseSyncRequest,
  parseTxRequest,
} from './envelope.js';
import { EvidencePool } from './evidence-pool.js';
import { PreverifiedSignatures } from './preverified.js';
import { ProposalArrivals, type ProposalArrival } from './proposal-arrivals.js';
import { ProposalTxFetch, decodeTxAnswer } from './proposal-tx-fetch.js';
import { openPrivValidator } from './sign-state-file.js';
import { isDiskFull } from '../store/disk-full.js';
import { TxRelay } from './tx-relay.js';

export interface ReplicaOptions {
  readonly chain: Chain;
  readonly transport: Transport & { peerInfo?(): Array<{ id: string; address: string; direction: 'inbound' | 'outbound'; connectedSince: number }> };
  readonly provider: SignatureProvider;
  /**
   * The node's validator key: the node signs at the heights whose set holds it and follows
   * without voting at the others, so a validator update moves it between the two. Null for a node
   * with no validator key.
   */
  readonly signer: { readonly address: string; readonly keyPair: KeyPair } | null;
  readonly dataDir: string;
  readonly pace: BlockPace;
  readonly syncHistoryBlocks: number;
  readonly log: Logger;
  readonly timeouts?: Partial<TimeoutConfig>;
  readonly now?: () => number;
  /** How far ahead of this node's clock a proposed block's time may be (`block-time.ts`). Default 500 ms. */
  readonly timestampPrecisionMs?: number;
  /** How often our round's messages are re-sent (lossy links). */
  readonly gossipMs?: number;
  /** How often our height is announced (catch-up trigger). */
  readonly statusMs?: number;
  /** Heights requested from one peer at a time when catching up. */
  readonly syncBatch?: number;
  /**
   * Worker threads for consensus signatures: peers' votes, proposals and commits are verified
   * there as they arrive, and our own votes are signed there, so the event loop never spends
   * milliseconds of ML-DSA per message. Absent: everything runs in-thread.
   */
  readonly consensusCrypto?: {
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean>;
    sign(message: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array>;
  };
  /** Light-client header signatures from peers (light-client-headers.ts): false for a malformed one. */
  readonly lightClientHeaders?: { receive(from: string, body: Uint8Array): boolean };
  /** Called once when an input could not be handled for want of disk space: the replica takes no more input. */
  readonly diskFull?: (err: Error) => void;
}

/**
 * A validator's consensus engine in a real process: the Tendermint driver (kernel/consensus)
 * wired to the chain (ABCI++-style ValueHost), the P2P transport, timers, a write-ahead log, the
 * durable last-signed record, an evidence pool and block catch-up. Every input (peer message,
 * timer, commit) runs through one queue, so effects apply in order.
 */
export class Replica implements ConsensusStatus {
  private readonly chain: Chain;
  /** Decodes both block forms; encodes the full one (catch-up). */
  private readonly codec: BlockCodec;
  /** Encodes proposals with transaction ids only: peers hold the texts from the relay. */
  private readonly compactCodec: BlockCodec;
  /** Texts of compact proposals' transactions this node does not hold. */
  private readonly fetch: ProposalTxFetch;
  private readonly relay: TxRelay;
  private readonly catchUp: CatchUp;
  private readonly evidence: EvidencePool;
  private readonly arrivals: ProposalArrivals;
  private readonly now: () => number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly preverified: PreverifiedSignatures | null;
  private driver!: ConsensusDriver;
  private wal!: ConsensusWal;
  private effects!: EffectDispatcher;
  /** The set of the working height, and of the one after (known a height ahead: SET_CHANGE_DELAY). */
  private validators!: ValidatorSet;
  private nextValidators!: ValidatorSet;
  private height = 0;
  private started = false;
  private stopped = false;
  private lastCommitAt: number;
  private queue: Promise<unknown> = Promise.resolve();
  private startTimer: NodeJS.Timeout | null = null;
  private rearmStart: (() => void) | null = null;
  private progressMark = '';

  constructor(private readonly o: ReplicaOptions) {
    this.chain = o.chain;
    this.now = o.now ?? Date.now;
    this.lastCommitAt = this.now();
    const crypto = o.consensusCrypto;
    this.preverified = crypto ? new PreverifiedSignatures((sig, msg, pk) => crypto.verify(sig, msg, pk)) : null;
    const now = (): number => this.now();
    const stopped = (): boolean => this.stopped;
    const send = (peer: string, bytes: Uint8Array): void => o.transport.send(peer, bytes);
    const broadcast = (bytes: Uint8Array): void => o.transport.broadcast(bytes);
    this.fetch = new ProposalTxFetch({
      send,
      peers: () => o.transport.peers(),
      pendingTx: (hash) => o.chain.pendingTx(hash),
      deliver: (from, body) => this.receiveConsensus(from, body),
      misbehaved: (peer, reason) => this.misbehaved(peer, reason),
      now,
    });
    this.codec = proposedBlockCodec(o.chain, { fetched: this.fetch.fetched });
    this.compactCodec = proposedBlockCodec(o.chain, { compact: true, fetched: this.fetch.fetched });
    this.relay = new TxRelay({ chain: o.chain, log: o.log, broadcast, stopped, now });
    this.catchUp = new CatchUp({
      chain: o.chain,
      codec: this.codec,
      syncHistoryBlocks: o.syncHistoryBlocks,
      syncBatch: o.syncBatch ?? 20,
      send,
      broadcast,
      now,
      stopped,
      apply: (d) => this.applyCommit(d.cert, d.block, d.from),
    });
    this.evidence = new EvidencePool({ chain: o.chain, provider: o.provider, log: o.log, broadcast });
    this.arrivals = new ProposalArrivals({
      chainId: o.chain.chainId,
      provider: o.provider,
      workerVerified: this.preverified !== null,
      precisionMs: o.timestampPrecisionMs ?? DEFAULT_TIMESTAMP_PRECISION_MS,
      log: o.log,
      now,
      height: () => this.height,
      round: () => this.round(),
      validatorsAt: (height) => this.validatorsAt(height),
    });
  }

  /** Consensus signatures verified on workers before the machine saw them (for /metrics and tests). */
  get preverifiedStats(): { preverified: number; hits: number } {
    return this.preverified?.stats ?? { preverified: 0, hits: 0 };
  }

  /** Transactions of compact proposals this node did not hold: asked of the sender, and texts received (for /metrics). */
  get proposalTxFetches(): { requested: number; received: number } {
    return { ...this.fetch.counts };
  }

  // ---- ConsensusStatus (for /health and /peers) ----

  round(): number {
    return this.started ? this.driver.state().round : 0;
  }

  peers(): PeerView[] {
    const info = this.o.transport.peerInfo?.();
    if (info) return info.map((p) => ({ id: p.id, address: p.address, direction: p.direction, connected_since: p.connectedSince }));
    return this.o.transport.peers().map((id) => ({ id, address: '', direction: 'outbound' as const, connected_since: 0 }));
  }

  behind(): number {
    return this.catchUp.behind();
  }

  // ---- lifecycle ----

  async start(): Promise<void> {
    const signer = this.o.signer ? await this.makeSigner(this.o.signer) : null;
    const opened = await ConsensusWal.open(join(this.o.dataDir, 'consensus.wal'), { codec: this.codec, compactCodec: this.compactCodec, fetched: this.fetch.fetched, log: this.o.log });
    this.wal = opened.wal;
    // timeoutPropose must outlast the proposer's pacing (it waits up to CHAIN_EMPTY_BLOCK_MS
    // before proposing an empty block), or idle networks would skip rounds.
    const timeouts: Partial<TimeoutConfig> = { proposeBaseMs: this.o.pace.emptyBlockMs + 1500, ...this.o.timeouts };
    const machine = new TendermintMachine({
      chainId: this.chain.chainId,
      selfAddress: this.o.signer?.address ?? null,
      provider: this.preverified ? this.preverified.provider(this.o.provider) : this.o.provider,
      // id(v) is recomputed from the header: a block's claimed hash is never trusted.
      hashValue: (block: unknown) => parseHex(blockHash((block as ProposedBlock).header), 32)!,
      timeouts,
    });
    const host = new ChainValueHost({ chain: this.chain, signer: this.o.signer, log: this.o.log, now: () => this.now(), evidence: () => this.evidence.proposable() });
    this.driver = new ConsensusDriver({ machine, signer, host, clock: this.now });
    this.effects = new EffectDispatcher({
      wal: this.wal,
      codec: this.codec,
      compactCodec: this.compactCodec,
      self: this.o.signer?.address ?? null,
      log: this.o.log,
      broadcast: (bytes) => this.o.transport.broadcast(bytes),
      scheduleTimeout: (e) => this.scheduleTimeout(e),
      decide: (block, cert) => this.commit(block, cert),
      evidence: (ev) => this.evidence.add(ev, true),
    });
    this.chain.on('queued', (tx, source) => {
      // Relay what clients submitted here, so every proposer's mempool has it; relayed
      // transactions are not relayed again (the validators' mesh is complete).
      if (source === 'local') this.relay.send({ origin: tx.origin, canonical: tx.canonical });
      this.fetch.onPending(tx);
      this.onTxQueued();
    });
    this.o.transport.onMessage((from, bytes) => this.receive(from, bytes));
    this.started = true;
    await this.serial(() => this.enterHeight(this.chain.head.height + 1, opened.entries));
    this.every(this.o.gossipMs ?? 1000, () => this.serial(() => this.gossip()));
    this.every(this.o.statusMs ?? 1000, () => this.serial(async () => this.catchUp.announceStatus()));
    this.every(250, () => this.fetch.tick());
    this.catchUp.announceStatus();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.startTimer) clearTimeout(this.startTimer);
    await this.queue.catch(() => undefined);
    await this.wal?.close();
  }

  private makeSigner(s: { address: string; keyPair: KeyPair }): Promise<LocalPrivValidator> {
    const crypto = this.o.consensusCrypto;
    return openPrivValidator({ dataDir: this.o.dataDir, address: s.address, keyPair: s.keyPair, provider: this.o.provider, ...(crypto ? { signAsync: (message: Uint8Array, secretKey: Uint8Array) => crypto.sign(message, secretKey) } : {}) });
  }

  private serial(fn: () => Promise<void> | void): Promise<void> {
    const run = this.queue.then(async () => {
      if (!this.stopped) await fn();
    });
    this.queue = run.catch((err: unknown) => {
      if (isDiskFull(err) && this.o.diskFull !== undefined && !this.stopped) {
        this.stopped = true;
        this.o.diskFull(err as Error);
        return;
      }
      this.o.log.error({ err }, 'consensus input failed');
    });
    return run.catch(() => undefined);
  }

  private every(ms: number, fn: () => void): void {
    const tick = (): void => {
      if (this.stopped) return;
      fn();
      const t = setTimeout(tick, ms);
      this.timers.add(t);
    };
    const t = setTimeout(tick, ms);
    this.timers.add(t);
  }

  private scheduleTimeout(e: ScheduleTimeoutEffect): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      void this.serial(async () => this.effects.dispatch(await this.driver.onTimeout(e.kind, e.height, e.round), false));
    }, e.durationMs);
    this.timers.add(t);
  }

  // ---- heights ----

  private async enterHeight(height: number, replay: Uint8Array[] = []): Promise<void> {
    const signedBefore = this.started && this.height > 0 && this.signs(this.validators);
    this.height = height;
    this.arrivals.enterHeight(height);
    this.fetch.enterHeight(height);
    // Both from committed state: every node derives the same set for each height.
    this.validators = new ValidatorSet(await this.chain.queries.validatorSetAt(height));
    this.nextValidators = new ValidatorSet(await this.chain.queries.validatorSetAt(height + 1));
    const signs = this.signs(this.validators);
    if (signs !== signedBefore && this.o.signer) {
      this.o.log.info({ height, validator: this.o.signer.address }, signs ? 'this node is in the validator set from this height: signing' : 'this node is not in the validator set at this height: following without voting');
    }
    const proposer = this.validators.proposer(height, 0).address;
    const replaying = replay.length > 0;
    if (!replaying && proposer === this.o.signer?.address) {
      this.scheduleOwnStart(height);
    } else {
      await this.startMachine(height);
    }
    if (replaying) await this.wal.replay(replay, { height: () => this.height, feed: (msg) => this.feed(msg, false) });
    const ready = this.catchUp.parked(height);
    if (ready) await this.applyCommit(ready.cert, ready.block, ready.from);
  }

  /**
   * The round-0 proposer starts its height after the pace: CHAIN_BLOCK_MS after the last commit
   * when transactions wait, CHAIN_EMPTY_BLOCK_MS otherwise. Everyone else starts at once and
   * waits in timeoutPropose, which is longer than that.
   */
  private scheduleOwnStart(height: number): void {
    const due = (): number => nextBlockDue(this.lastCommitAt, this.chain.mempool.size, this.o.pace);
    const arm = (): void => {
      if (this.startTimer) clearTimeout(this.startTimer);
      this.startTimer = setTimeout(() => {
        this.startTimer = null;
        void this.serial(async () => {
          if (this.height !== height || this.driver.state().height === height) return;
          await this.startMachine(height);
        });
      }, Math.max(0, due() - this.now()));
    };
    this.rearmStart = arm;
    arm();
  }

  private async startMachine(height: number): Promise<void> {
    await this.effects.dispatch(await this.driver.start(height, this.validators, this.nextValidators), false);
  }

  /** Whether this node's key is in `set` (the machine votes only then). */
  private signs(set: ValidatorSet): boolean {
    return this.o.signer !== null && set.has(this.o.signer.address);
  }

  /** The set of the working height or the next one; undefined for any other. */
  private validatorsAt(height: number): ValidatorSet | undefined {
    return height === this.height ? this.validators : height === this.height + 1 ? this.nextValidators : undefined;
  }

  private onTxQueued(): void {
    if (this.startTimer && this.rearmStart) this.rearmStart();
  }

  private async commit(block: ProposedBlock, cert: CommitCertificate): Promise<void> {
    // A certificate proves that 2/3 voted for the block, not that it fits this node's chain:
    // a block that does not follow our own head means our state diverged, and we stop here.
    const outcome = await this.chain.commitDecided(block, async () => decidedCommit(cert));
    if ('reason' in outcome) {
      this.o.log.error({ height: block.header.height, reason: outcome.reason }, 'decided block does not apply to this node\'s chain; halting consensus');
      this.stopped = true;
      return;
    }
    const { record } = outcome;
    this.lastCommitAt = this.now();
    this.evidence.committed(block.evidence);
    this.catchUp.committed(record.header.height);
    await this.wal.reset();
    await this.wal.appendBuffered(this.driver.machine.bufferedFor(record.header.height + 1));
    this.o.log.info({ height: record.header.height, round: cert.round, txs: record.header.tx_count, hash: record.hash }, 'block committed');
    this.catchUp.announceStatus();
    await this.enterHeight(record.header.height + 1);
  }

  // ---- peers ----

  /**
   * A consensus message is decoded and its signatures start verifying on a worker as soon as it
   * arrives, outside the input queue, so verification overlaps with the processing of earlier
   * inputs; its turn in the queue then waits for that verification.
   */
  private receive(from: string, bytes: Uint8Array): void {
    const env = openEnvelope(bytes);
    if (!env) return;
    if (env.tag === TAG_CONSENSUS) return this.receiveConsensus(from, env.body);
    void this.serial(() => this.onMessage(from, env));
  }

  private receiveConsensus(from: string, body: Uint8Array): void {
    const msg = decodeConsensusMessage(body, this.codec);
    if (msg?.kind === 'proposal') {
      const arrival = this.arrivals.arrival(msg.proposal);
      if (msg.block instanceof MissingTransactions) {
        void this.awaitTexts(from, body, msg.proposal, arrival, msg.block);
        return;
      }
      this.fetch.settled(arrival.key);
      return this.consensusInput(from, body, msg, arrival);
    }
    this.consensusInput(from, body, withoutMissing(msg));
  }

  private consensusInput(from: string, body: Uint8Array, msg: ConsensusMessage | null, arrival?: ProposalArrival): void {
    const ready = msg ? this.preverify(msg) : null;
    void this.serial(async () => {
      const verified = ready ? await ready : undefined;
      if (arrival && msg?.kind === 'proposal') this.arrivals.note(msg.proposal, arrival, verified === true);
      await this.onConsensusMessage(from, body, msg);
    });
  }

  /**
   * A compact proposal naming transactions this node does not hold. It waits for their texts
   * only if it is this round's proposer's and its signature verifies: anything else could fill
   * the wait list with made-up ids. If the texts never come, this node misses the proposal
   * (nil prevote at the propose timeout) and takes the decided block by catch-up.
   */
  private async awaitTexts(from: string, body: Uint8Array, signed: SignedProposal, arrival: ProposalArrival, missing: MissingTransactions): Promise<void> {
    const p = signed.proposal;
    const key = arrival.key;
    if ((p.height !== this.height && p.height !== this.height + 1) || this.fetch.isAwaiting(key)) return;
    // The ids match the header (the decoder checked tx_root); the header must be the signed one,
    // or a relayer could park a made-up list under a genuine proposal.
    if (missing.header.height !== p.height || blockHash(missing.header) !== toHex0x(p.blockHash)) return this.misbehaved(from, 'proposal block does not match its signed hash');
    const validators = this.validatorsAt(p.height);
    const publicKey = validators?.publicKeyOf(p.proposer);
    if (!validators || !publicKey || validators.proposer(p.height, p.round).address !== p.proposer) return;
    let ok: boolean;
    try {
      const message = proposalSignBytes(this.chain.chainId, p);
      ok = this.preverified ? await this.preverified.check(signed.signature, message, publicKey) : this.o.provider.verify(signed.signature, message, publicKey);
    } catch {
      ok = false;
    }
    if (!ok) return this.misbehaved(from, 'proposal signature does not verify');
    this.arrivals.note(signed, arrival, true);
    this.fetch.await(from, body, { height: p.height, round: p.round, proposer: p.proposer, key }, missing.missing);
  }

  /** Verifies a message's signatures on the consensus workers when they belong to the current or next height. */
  private preverify(msg: ConsensusMessage): Promise<unknown> | null {
    const h = consensusMessageHeight(msg);
    // The next height's messages too: the machine buffers only what verifies against that height's set.
    const validators = this.started ? this.validatorsAt(h) : undefined;
    if (!this.preverified || !validators) return null;
    return this.preverified.checkMessage(msg, this.chain.chainId, (address) => validators.publicKeyOf(address));
  }

  private async onConsensusMessage(from: string, body: Uint8Array, msg: ConsensusMessage | null): Promise<void> {
    if (!msg) {
      this.misbehaved(from, 'undecodable consensus message');
      return;
    }
    if (msg.kind === 'commit') {
      await this.catchUp.onDecided({ cert: msg.certificate, block: msg.block as ProposedBlock, from }, this.height);
      return;
    }
    if (consensusMessageHeight(msg) === this.height) {
      if (msg.kind === 'proposal') await this.wal.appendProposal(msg.block as ProposedBlock, body, false);
      else await this.wal.append(body, false);
    }
    await this.feed(msg, false);
  }

  /** Every other replica message, in the input queue (consensus messages go through `receive`). */
  private async onMessage(from: string, env: { tag: number; body: Uint8Array }): Promise<void> {
    switch (env.tag) {
      case TAG_STATUS: {
        const s = parseStatus(parseJsonBody(env.body));
        if (!s) return this.misbehaved(from, 'bad status');
        this.catchUp.onStatus(from, s);
        return;
      }
      case TAG_SYNC_REQUEST: {
        const r = parseSyncRequest(parseJsonBody(env.body));
        if (!r) return this.misbehaved(from, 'bad sync request');
        await this.catchUp.serve(from, r);
        return;
      }
      case TAG_TX:
      case TAG_TX_BATCH:
        if (!this.relay.receive(from, env.tag, env.body)) this.misbehaved(from, 'bad transaction relay');
        return;
      case TAG_TX_REQUEST: {
        const hashes = parseTxRequest(parseJsonBody(env.body));
        if (!hashes) return this.misbehaved(from, 'bad transaction request');
        this.fetch.onRequest(from, hashes);
        return;
      }
      case TAG_TX_TEXTS: {
        const answer = decodeTxAnswer(env.body);
        if (!answer) return this.misbehaved(from, 'bad transaction texts');
        this.fetch.onTexts(from, answer);
        return;
      }
      case TAG_LC_HEADER_SIGNATURE:
        if (this.o.lightClientHeaders && !this.o.lightClientHeaders.receive(from, env.body)) this.misbehaved(from, 'bad light-client header signature');
        return;
      case TAG_EVIDENCE: {
        const ev = evidenceFromJson(parseJsonBody(env.body));
        if (!ev) return this.misbehaved(from, 'bad evidence');
        await this.evidence.add(ev, false);
        return;
      }
      default:
        this.misbehaved(from, `unknown message tag ${env.tag}`);
    }
  }

  private async feed(msg: ConsensusMessage, fromGossip: boolean): Promise<void> {
    if (msg.kind === 'vote') await this.effects.dispatch(await this.driver.onVote(msg.vote), fromGossip);
    else if (msg.kind === 'proposal') await this.effects.dispatch(await this.driver.onProposal(msg.proposal, msg.block, this.arrivals.isTimely(msg.proposal, msg.block as ProposedBlock)), fromGossip);
    else await this.applyCommit(msg.certificate, msg.block as ProposedBlock, null);
  }

  /** A decided block from `from`; one that does not decide (bad certificate, invalid block) is dropped and asked of another peer. */
  private async applyCommit(cert: CommitCertificate, block: ProposedBlock, from: string | null): Promise<void> {
    const height = this.height;
    if (cert.height !== height) return;
    if (this.driver.state().height !== height) await this.startMachine(height);
    await this.effects.dispatch(await this.driver.onCommit(cert, block), false);
    if (from === null || this.height !== height || this.driver.state().decided) return;
    const status = this.driver.machine.valueStatus(cert.blockHash);
    // Our own failure to validate (retried) says nothing about the peer.
    if (status === 'pending' || status === 'unanswered') return;
    // A certificate that does not verify is the peer's doing; a verified one for a block that
    // does not apply here is ours (state divergence, logged at validation), so no report then.
    if (status === undefined) this.misbehaved(from, 'decided block with a commit certificate that does not verify');
    this.catchUp.failedFrom(from);
  }

  private misbehaved(peer: string, reason: string): void {
    this.o.log.warn({ peer, reason }, 'peer misbehaved');
    const t = this.o.transport as { reportMisbehaviour?: (peer: string, points: number, reason: string) => void };
    t.reportMisbehaviour?.(peer, 20, reason);
  }

  /**
   * Re-sends the round's messages only when consensus has not moved for a gossip period: on a
   * healthy network every message arrived the first time, and re-sending all votes every period
   * would cost about 2n signed votes per node per second for nothing.
   */
  private async gossip(): Promise<void> {
    const s = this.driver.state();
    if (s.height !== this.height) return;
    await this.effects.dispatch(await this.driver.retryValidations(), false);
    const mark = `${s.height}/${s.round}/${s.step}`;
    if (mark !== this.progressMark) {
      this.progressMark = mark;
      return;
    }
    await this.effects.dispatch(await this.driver.gossip(), true);
  }
}
