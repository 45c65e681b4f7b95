import { hashOfCanonical } from '../tx/hash.js';
import { FetchedTxs, originKey as keyOf } from './fetched-txs.js';
import { MAX_TX_REQUEST, TAG_TX_REQUEST, TAG_TX_TEXTS, decodeTxBatch, encodeTxBatch, envelope, type RelayedTx } from './envelope.js';

/** Waiting proposals: one per proposer and height is allowed, so this is only a backstop. */
const MAX_AWAITING = 64;
/** UTF-8 bytes of texts in one answer: a sealed frame holds at most 4 MiB. */
const ANSWER_MAX_BYTES = 3 * 1024 * 1024;
/** Requests answered per peer per height: a block's worth in chunks, and a few rounds. */
const MAX_ANSWERS_PER_PEER = 32;
/** A request unanswered this long is given up on, and its ids asked of every other peer. */
export const REQUEST_TIMEOUT_MS = 1000;

export interface ProposalTxFetchDeps {
  send(peer: string, bytes: Uint8Array): void;
  peers(): string[];
  /** What admission holds, to answer peers' requests. */
  pendingTx(hash: string): RelayedTx | undefined;
  /** A waiting proposal whose texts are all here now: back to the replica's input path. */
  deliver(from: string, body: Uint8Array): void;
  misbehaved(peer: string, reason: string): void;
  now(): number;
}

/** Which proposal: its slot (one per proposer and height), round and block. */
export interface ProposalSlot {
  readonly height: number;
  readonly round: number;
  readonly proposer: string;
  /** Height, round and block hash: the same proposal whoever relays it. */
  readonly key: string;
}

type Missing = ReadonlyArray<{ readonly origin: RelayedTx['origin']; readonly hash: string }>;

interface Awaited {
  readonly slot: ProposalSlot;
  readonly from: string;
  readonly body: Uint8Array;
  /** `origin:hash` of what is still missing. */
  readonly missing: Set<string>;
  askedAll: boolean;
}

const hashOfKey = (key: string): string => key.slice(key.indexOf(':') + 1);

/**
 * Fetching the transaction texts a compact proposal names and this node does not hold (it was
 * down when they were relayed, or refused them: mempool full, a nonce it had not seen confirmed).
 * The replica hands over only a proposal whose signature verified, whose signer is the round's
 * proposer and whose header commits to the listed ids; one waits per proposer and height (a
 * later round replaces an earlier one). The peer that sent it, which decoded it and so holds
 * every text, is asked first. An answer says whether it was cut at the frame bound (the rest is
 * asked of the same peer) or is whole (what it lacks is asked of every other peer, once); a
 * request unanswered for REQUEST_TIMEOUT_MS is given up and its ids asked of the others. Texts
 * are taken only from a peer with a request in flight and only for the ids (and origins) sent
 * to it: anything else ends that request unhashed and counts as misbehaviour.
 */
export class ProposalTxFetch {
  readonly fetched = new FetchedTxs();
  readonly counts = { requested: 0, received: 0 };
  /** By `height/proposer`. */
  private readonly awaiting = new Map<string, Awaited>();
  /** The one request in flight per peer: the `origin:hash` keys sent, and when. */
  private readonly inflight = new Map<string, { sent: Set<string>; sentAt: number }>();
  /** Keys to ask a peer once its request in flight is answered. */
  private readonly queued = new Map<string, Set<string>>();
  private readonly answered = new Map<string, number>();
  private height = 0;

  constructor(private readonly d: ProposalTxFetchDeps) {}

  /** A new height: earlier heights' waits go; a kept wait for this height asks its sender anew. */
  enterHeight(height: number): void {
    this.height = height;
    this.inflight.clear();
    this.queued.clear();
    this.answered.clear();
    for (const [slot, a] of this.awaiting) {
      if (a.slot.height < height) this.awaiting.delete(slot);
      else {
        a.askedAll = false;
        this.ask(a.from, [...a.missing]);
      }
    }
  }

  isAwaiting(key: string): boolean {
    for (const a of this.awaiting.values()) if (a.slot.key === key) return true;
    return false;
  }

  get waiting(): number {
    return this.awaiting.size;
  }

  /** Waits for `missing` before `body` can be decoded, and asks `from` for them. */
  await(from: string, body: Uint8Array, slot: ProposalSlot, missing: Missing): void {
    if (slot.height < this.height) return;
    const at = `${slot.height}/${slot.proposer}`;
    const held = this.awaiting.get(at);
    // The same proposal again, or one of an earlier round (or an equivocating one) of that slot.
    if (held && (held.slot.key === slot.key || held.slot.round >= slot.round)) return;
    if (!held && this.awaiting.size >= MAX_AWAITING) return;
    const keys = missing.map((m) => keyOf(m.origin, m.hash));
    this.awaiting.set(at, { slot, from, body, missing: new Set(keys), askedAll: false });
    this.ask(from, keys);
  }

  /** The proposal decoded without waiting (a re-send, or the texts came by relay). */
  settled(key: string): void {
    for (const [at, a] of this.awaiting) if (a.slot.key === key) this.awaiting.delete(at);
  }

  /** A transaction was admitted here: a proposal that waited only for such texts can go on. */
  onPending(tx: RelayedTx & { readonly hash: string }): void {
    if (this.awaiting.size > 0) this.resolve(new Set([keyOf(tx.origin, tx.hash)]));
  }

  /** Gives up on requests in flight too long: their ids are asked of every other peer. */
  tick(): void {
    const now = this.d.now();
    for (const [peer, req] of this.inflight) {
      if (now - req.sentAt < REQUEST_TIMEOUT_MS) continue;
      this.inflight.delete(peer);
      const lost = [...req.sent, ...(this.queued.get(peer) ?? [])].filter((k) => this.isMissing(k));
      this.queued.delete(peer);
      for (const other of this.d.peers()) if (other !== peer) this.ask(other, lost);
    }
  }

  /** A peer's request: what is pending or fetched here, in answers of at most one frame each. */
  onRequest(peer: string, hashes: readonly string[]): void {
    const n = (this.answered.get(peer) ?? 0) + 1;
    this.answered.set(peer, n);
    if (n > MAX_ANSWERS_PER_PEER) {
      if (n === MAX_ANSWERS_PER_PEER + 1) this.d.misbehaved(peer, 'too many transaction requests in one height');
      return;
    }
    const found: RelayedTx[] = [];
    let bytes = 0;
    let cut = false;
    for (const h of new Set(hashes)) {
      const tx = this.d.pendingTx(h) ?? this.fetched.get(h);
      if (!tx) continue;
      bytes += 5 + Buffer.byteLength(tx.canonical, 'utf8');
      if (bytes > ANSWER_MAX_BYTES) {
        cut = true;
        break;
      }
      found.push({ origin: tx.origin, canonical: tx.canonical });
    }
    // Always answered, empty if need be, saying whether it was cut at the frame bound.
    this.d.send(peer, encodeTxAnswer(found, cut, [TAG_TX_TEXTS]));
  }

  /** An answer: ends the request in flight to that peer; texts not sent for are refused unhashed. */
  onTexts(peer: string, answer: TxAnswer): void {
    const req = this.inflight.get(peer);
    if (!req) return;
    this.inflight.delete(peer);
    let cut = answer.cut;
    if (cut && answer.txs.length === 0) {
      // "More to come" with nothing in it would have us ask forever.
      this.d.misbehaved(peer, 'a cut transaction answer with no texts');
      cut = false;
    }
    const got = new Set<string>();
    for (const t of answer.txs) {
      const key = keyOf(t.origin, hashOfCanonical(t.canonical));
      if (!req.sent.has(key)) {
        this.d.misbehaved(peer, 'transaction text that was not asked for');
        break;
      }
      req.sent.delete(key);
      this.fetched.put(hashOfKey(key), t);
      got.add(key);
    }
    this.counts.received += got.size;
    this.resolve(got);
    const lacking = [...req.sent].filter((k) => this.isMissing(k));
    if (cut) this.ask(peer, lacking);
    else {
      const lack = new Set(lacking);
      for (const a of this.awaiting.values()) {
        const theirs = [...a.missing].filter((k) => lack.has(k));
        if (theirs.length === 0 || a.askedAll) continue;
        a.askedAll = true;
        for (const other of this.d.peers()) if (other !== peer) this.ask(other, theirs);
      }
    }
    const next = this.queued.get(peer);
    this.queued.delete(peer);
    if (next) this.ask(peer, [...next].filter((k) => this.isMissing(k)));
  }

  private isMissing(key: string): boolean {
    for (const a of this.awaiting.values()) if (a.missing.has(key)) return true;
    return false;
  }

  private ask(peer: string, keys: readonly string[]): void {
    if (keys.length === 0) return;
    if (this.inflight.has(peer)) return this.enqueue(peer, keys);
    const sent = new Set([...new Set(keys)].slice(0, MAX_TX_REQUEST));
    if (keys.length > sent.size) this.enqueue(peer, keys.filter((k) => !sent.has(k)));
    this.inflight.set(peer, { sent, sentAt: this.d.now() });
    this.counts.requested += sent.size;
    this.d.send(peer, envelope(TAG_TX_REQUEST, { hashes: [...new Set([...sent].map(hashOfKey))] }));
  }

  /** Keys to ask `peer` once its request in flight is answered. */
  private enqueue(peer: string, keys: readonly string[]): void {
    const q = this.queued.get(peer) ?? new Set<string>();
    for (const k of keys) q.add(k);
    this.queued.set(peer, q);
  }

  /** Removes `got` from every waiting proposal; delivers those with nothing left to wait for. */
  private resolve(got: ReadonlySet<string>): void {
    if (got.size === 0) return;
    for (const [at, a] of this.awaiting) {
      for (const k of got) a.missing.delete(k);
      if (a.missing.size === 0) {
        this.awaiting.delete(at);
        this.d.deliver(a.from, a.body);
      }
    }
  }
}

export interface TxAnswer {
  readonly txs: readonly RelayedTx[];
  /** The answer stopped at the frame bound; more of what was asked may be held. */
  readonly cut: boolean;
}

/** An answer on the wire: one byte (1 cut, 0 whole), then the batch encoding (nothing if empty); `head` goes before it (the envelope tag). */
export function encodeTxAnswer(txs: readonly RelayedTx[], cut: boolean, head: readonly number[] = []): Uint8Array {
  return encodeTxBatch(txs, [...head, cut ? 1 : 0]);
}

export function decodeTxAnswer(body: Uint8Array): TxAnswer | null {
  if (body.length < 1 || body[0]! > 1) return null;
  const cut = body[0] === 1;
  if (body.length === 1) return { txs: [], cut };
  const txs = decodeTxBatch(body.subarray(1));
  return txs ? { txs, cut } : null;
}
