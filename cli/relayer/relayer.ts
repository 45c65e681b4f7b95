import type { Logger } from 'pino';
import { PollLoop } from './poll-loop.js';
import { NodeRefusal } from '../client/node-client.js';
import { IBC_VALSET_KEY, ibcClientHeightKey, ibcCommitmentKey, ibcReceiptKey, ibcValsetValue } from '../../kernel/light-client/index.js';
import { retryDelay } from './retry-delay.js';
import { clientTarget, proofHeightFrom, type WaitingRecv } from './client-target.js';
import type { ClientState, PacketState, RelayerChain, ServedHeader, WireValidator } from './chain-endpoint.js';

/**
 * `chain relayer` (decisions.md §70): each poll, per direction X → Y, it creates Y's client of X
 * when missing, delivers X's locked packets to Y under a verified header at or above their
 * commitment height, acks what Y received, submits the proven timeouts of what Y can no longer
 * receive, and moves Y's client forward (never to or past the timeout of a packet whose recv it
 * has not tried, client-target.ts). Everything it acts on is read from the chains at each poll
 * (packet states, client heights, receipts), so a relayer killed at any point and restarted
 * resumes without double delivery: the chains refuse a second recv, ack or timeout of a packet.
 * What it keeps in memory only paces it, and only about packets still locked: recvs refused for
 * a reason about the packet itself, submissions in flight, and the growing delay before a refused
 * (or failed) submission is tried again.
 */
export interface RelayerOptions {
  readonly a: RelayerChain;
  readonly b: RelayerChain;
  readonly log: Logger;
  readonly intervalMs: number;
}

interface Retry {
  readonly attempts: number;
  readonly notBefore: number;
  /** The packet the operation is about (none for a client update): forgotten once it is no longer locked. */
  readonly packet: string | undefined;
}

interface Direction {
  readonly src: RelayerChain;
  readonly dst: RelayerChain;
  /** dst's client of src. */
  readonly clientOnDst: ClientState;
  /** src's client of dst. */
  readonly clientOnSrc: ClientState;
  readonly newestSrcHeader: ServedHeader | undefined;
  readonly packets: readonly PacketState[];
}

/** What one poll found a client of a chain needs (keyed by the chain that holds the client). */
interface ClientNeeds {
  readonly waiting: WaitingRecv[];
  readonly needed: number[];
}

export class Relayer {
  /** Packets whose recv the destination refused at admission (it will not take them): their timeouts may pass. */
  private readonly refusedRecv = new Set<string>();
  private readonly retries = new Map<string, Retry>();
  private readonly inFlight = new Map<string, { chain: RelayerChain; hash: string; packet: string | undefined }>();
  private ready = false;
  private readonly loop: PollLoop;

  constructor(private readonly o: RelayerOptions) {
    this.loop = new PollLoop(o.intervalMs, o.log, () => this.poll());
  }

  /** Polls until stop(); a failed poll is logged and the next one runs (poll-loop.ts). */
  start(): void {
    this.loop.start();
  }

  /** Ends the loop after the poll under way. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  async poll(): Promise<void> {
    const { a, b } = this.o;
    const [clientOnB, clientOnA] = await Promise.all([b.client(a.chainId), a.client(b.chainId)]);
    if (!clientOnB) await this.createClient(a, b);
    if (!clientOnA) await this.createClient(b, a);
    if (!clientOnA || !clientOnB) return;
    if (!this.ready) {
      this.ready = true;
      this.o.log.info({ a: a.chainId, b: b.chainId, client_on_a: clientOnA.latest_height, client_on_b: clientOnB.latest_height }, 'relayer ready');
    }
    // Headers before packets: every packet committed at or below the newest header is in the list read after it.
    const [headerA, headerB] = await Promise.all([a.latestHeader(), b.latestHeader()]);
    const paired = await this.pairedChannels();
    const [packetsA, packetsB] = await Promise.all([this.lockedOut(a, paired), this.lockedOut(b, paired)]);
    const ab: Direction = { src: a, dst: b, clientOnDst: clientOnB, clientOnSrc: clientOnA, newestSrcHeader: headerA, packets: packetsA };
    const ba: Direction = { src: b, dst: a, clientOnDst: clientOnA, clientOnSrc: clientOnB, newestSrcHeader: headerB, packets: packetsB };
    // needs.get(chain id holding the client)
    const needs = new Map<string, ClientNeeds>([
      [a.chainId, { waiting: [], needed: [] }],
      [b.chainId, { waiting: [], needed: [] }],
    ]);
    for (const d of [ab, ba]) await this.deliver(d, needs);
    for (const d of [ab, ba]) await this.updateClient(d, needs.get(d.dst.chainId)!);
    this.forgetSettled(new Set([...packetsA, ...packetsB].map((p) => p.id)));
  }

  /** Drops what it keeps about packets no longer locked (acked, timed out, their channel gone): memory stays bounded by what is in flight. */
  private forgetSettled(locked: ReadonlySet<string>): void {
    for (const id of this.refusedRecv) if (!locked.has(id)) this.refusedRecv.delete(id);
    for (const [key, r] of this.retries) if (r.packet !== undefined && !locked.has(r.packet)) this.retries.delete(key);
    for (const [key, f] of this.inFlight) if (f.packet !== undefined && !locked.has(f.packet)) this.inFlight.delete(key);
  }

  /** Channel ids open (or paused) on both chains, each naming the other as counterparty. */
  private async pairedChannels(): Promise<Set<string>> {
    const { a, b } = this.o;
    const [onA, onB] = await Promise.all([a.channels(), b.channels()]);
    const fromB = new Map(onB.filter((c) => c.counterparty_chain === a.chainId).map((c) => [c.channel, c]));
    return new Set(onA.filter((c) => c.counterparty_chain === b.chainId && fromB.get(c.channel)?.port === c.port).map((c) => c.channel));
  }

  private async lockedOut(chain: RelayerChain, paired: ReadonlySet<string>): Promise<PacketState[]> {
    const locked = await chain.packets({ direction: 'out', status: 'locked' });
    return locked.filter((p) => paired.has(p.channel)).sort((x, y) => x.height - y.height || x.sequence - y.sequence);
  }

  private async createClient(src: RelayerChain, dst: RelayerChain): Promise<void> {
    const header = await src.latestHeader();
    if (!header) {
      this.o.log.info({ chain: src.chainId }, 'waiting for a first commit header to create a client from');
      return;
    }
    await this.submit(dst, 'ibc_client_update', `client ${dst.chainId} ${src.chainId}`, { header }, { chain: src.chainId, height: header.height, created: true });
  }

  /** recv to dst, ack and timeout back to src, for each locked src packet; records what the clients need. */
  private async deliver(d: Direction, needs: Map<string, ClientNeeds>): Promise<void> {
    const { src, dst, clientOnDst, clientOnSrc } = d;
    for (const p of d.packets) {
      const sequenceKey = { channel: p.channel, sequence: p.sequence };
      const receipt = await dst.received(p.id);
      if (receipt) {
        // Ack: src's client of dst must verify a dst height at or above the receipt's.
        const h = proofHeightFrom(clientOnSrc.heights, receipt.height);
        if (h === undefined) {
          needs.get(src.chainId)!.needed.push(receipt.height);
          continue;
        }
        const proof = await dst.proof(ibcReceiptKey(sequenceKey.channel, sequenceKey.sequence), h);
        if (!proof.exists) continue; // not yet in that block's state: a later poll
        await this.submit(src, 'ibc_ack', `ack ${p.id}`, { id: p.id, proof_height: h, proof: proof.proof }, { id: p.id, proof_height: h }, p.id);
        continue;
      }
      if (clientOnDst.latest_height < p.timeout_height) {
        needs.get(dst.chainId)!.waiting.push({ height: p.height, timeoutHeight: p.timeout_height, tried: this.refusedRecv.has(p.id) });
        const h = proofHeightFrom(clientOnDst.heights, p.height);
        if (h === undefined) {
          needs.get(dst.chainId)!.needed.push(p.height);
          continue;
        }
        const proof = await src.proof(ibcCommitmentKey(p.channel, p.sequence), h);
        if (!proof.exists) continue;
        await this.submit(dst, 'ibc_recv', `recv ${p.id}`, { packet_id: p.id, ...packetFields(p), timeout_height: p.timeout_height, proof_height: h, proof: proof.proof }, { id: p.id, proof_height: h }, p.id);
        continue;
      }
      // dst's client passed the timeout, so dst refuses the recv for good: a proven timeout on src, under the
      // newest dst height src's client verified, once dst's own client height there shows it.
      const h = clientOnSrc.latest_height;
      const clientHeight = await dst.proof(ibcClientHeightKey(src.chainId), h);
      const at = clientHeight.value_hex === null ? 0 : Number(Buffer.from(clientHeight.value_hex.replace(/^0x/, ''), 'hex').toString('utf8'));
      if (!clientHeight.exists || at < p.timeout_height) continue; // src's client of dst moves to a newer dst header first
      const absence = await dst.proof(ibcReceiptKey(p.channel, p.sequence), h);
      if (absence.exists) continue;
      await this.submit(src, 'ibc_timeout', `timeout ${p.id}`, { id: p.id, proof_height: h, proof: absence.proof, client_height: at, client_proof: clientHeight.proof }, { id: p.id, proof_height: h, client_height: at }, p.id);
    }
  }

  private async updateClient(d: Direction, need: ClientNeeds): Promise<void> {
    const { src, dst, clientOnDst } = d;
    const target = clientTarget({ latest: clientOnDst.latest_height, newestHeader: d.newestSrcHeader?.height, waiting: need.waiting, needed: need.needed });
    if (target === undefined) return;
    const found = target === d.newestSrcHeader?.height ? d.newestSrcHeader : await src.header(target);
    if (!found) return; // its signatures are still being gathered
    const header = await this.throughSetChange(src, clientOnDst, found);
    await this.submit(dst, 'ibc_client_update', `client ${dst.chainId} ${src.chainId}`, { header }, { chain: src.chainId, height: header.height });
  }

  /**
   * The client trusts only the set it last adopted (§65), so a header past a change of the
   * source's validator set is signed by a set it does not know yet. Then the update goes first to
   * the header of the block where `ibc/valset` first differs from the trusted set (§64 serves one
   * at every set change; still signed by the trusted set, it carries the new one with its proof),
   * found by bisecting the source's `ibc/valset` proofs; the next poll goes on from there.
   */
  private async throughSetChange(src: RelayerChain, client: ClientState, header: ServedHeader): Promise<ServedHeader> {
    const trusted = valsetText(client.validators);
    const served = header['validators'];
    if (!Array.isArray(served) || valsetText(served as WireValidator[]) === trusted) return header;
    let same = client.latest_height;
    let changed = header.height;
    while (changed - same > 1) {
      const mid = same + Math.floor((changed - same) / 2);
      const at = await src.proof(IBC_VALSET_KEY, mid);
      if (at.value_hex !== null && Buffer.from(at.value_hex.replace(/^0x/, ''), 'hex').toString('utf8') === trusted) same = mid;
      else changed = mid;
    }
    if (changed === header.height) return header;
    const step = await src.header(changed);
    if (!step) return header;
    this.o.log.info({ chain: src.chainId, from: client.latest_height, set_change: changed, newest: header.height }, 'the validator set changed: updating the client through the header of the change first');
    return step;
  }

  /**
   * Submits one operation unless the same one is still in the pool or waiting out its delay;
   * logs one line per submission, and a refusal (or a failure in its block) with the node's
   * message. A refusal at admission costs nothing and is tried again next poll (decisions.md
   * §70); a failure in its block paid its fee, so it waits a delay that doubles with each one.
   * The attempts count from the first refusal until the operation is confirmed.
   */
  private async submit(chain: RelayerChain, op: string, key: string, body: Record<string, unknown>, what: Record<string, unknown>, packet?: string): Promise<void> {
    const now = Date.now();
    const retry = this.retries.get(key);
    if (retry && retry.notBefore > now) return;
    const flight = this.inFlight.get(key);
    if (flight) {
      const outcome = await flight.chain.txStatus(flight.hash);
      if (outcome.status === 'pending') return;
      this.inFlight.delete(key);
      if (outcome.status === 'confirmed') this.retries.delete(key);
      if (outcome.status === 'failed') {
        // Executed and failed (its fee paid): resending at once would fail again and pay again.
        this.refused(chain, op, key, what, packet, now, { status: 'failed', error: outcome.error, tx_hash: flight.hash }, outcome.error, true);
        return;
      }
    }
    try {
      const hash = await chain.submit(op, body);
      this.inFlight.set(key, { chain, hash, packet });
      this.o.log.info({ chain: chain.chainId, op, ...what, tx_hash: hash }, `submitted ${op}`);
    } catch (err) {
      if (!(err instanceof NodeRefusal)) throw err;
      this.refused(chain, op, key, what, packet, now, { status: err.status, error: err.nodeMessage }, err.status === 400 ? err.nodeMessage : undefined, false);
    }
  }

  /**
   * Counts the refusal of `key`, sets the growing delay of one that `paid` (failed in its block),
   * and marks a recv refused for good when `judged` (a 400's or failure's message) is about the
   * packet itself.
   */
  private refused(chain: RelayerChain, op: string, key: string, what: Record<string, unknown>, packet: string | undefined, now: number, logged: Record<string, unknown>, judged: string | undefined, paid: boolean): void {
    const attempts = (this.retries.get(key)?.attempts ?? 0) + 1;
    const delay = paid ? retryDelay(this.o.intervalMs, attempts) : this.o.intervalMs;
    this.retries.set(key, { attempts, notBefore: paid ? now + delay : 0, packet });
    if (op === 'ibc_recv' && packet !== undefined && judged !== undefined && refusesThePacket(judged)) this.refusedRecv.add(packet);
    this.o.log.warn({ chain: chain.chainId, op, ...what, ...logged, attempts, retry_in_ms: delay }, `${op} refused`);
  }
}

/**
 * §68–69's recv refusals about the packet itself (its kind, fields, receiver, denom, amount, the
 * channel's outstanding and limits) and the destination's own refusal of its channel (paused,
 * §67: which still takes the timeout): the destination does not take it, so the client moves on
 * and its timeout may pass (§70 bounds the client only until the recv is tried). Any other refusal
 * (the relayer's balance or fee, a nonce, a proof height not verified yet, a proof) is the
 * relayer's to clear, so the client stays below the packet's timeout meanwhile.
 */
const PACKET_REFUSALS = [
  /^packet_id /,
  /^kind must be /,
  /^an? \w+ packet (needs|cannot arrive)/,
  /^(sender|receiver|denom|memo|bytecode_hash|model|subject) must be /,
  /^amount /,
  /^receiver \S+ is not an address/,
  /is not a valid recipient/,
  /^denom \S+/,
  /^channel \S+ (has \d+ ucoin outstanding|would expose)/,
  /^channel \S+ is paused/,
];

export function refusesThePacket(message: string): boolean {
  return PACKET_REFUSALS.some((re) => re.test(message));
}

/** The packet's own fields as recv takes them (§69): a transfer's five or an attestation's five. */
function packetFields(p: PacketState): Record<string, unknown> {
  if (p.kind === 'attest') return { kind: 'attest', bytecode_hash: p.bytecode_hash, score: p.score, model: p.model, timestamp: p.timestamp, subject: p.subject };
  return { kind: 'transfer', sender: p.sender, receiver: p.receiver, denom: p.denom, amount: p.amount, memo: p.memo ?? '' };
}

/** §66's `ibc/valset` text of a set as headers and clients list it. */
function valsetText(validators: readonly WireValidator[]): string {
  return ibcValsetValue(validators.map((v) => ({ public_key: v.public_key, power: BigInt(v.power) })));
}
