import { hashOfCanonical } from '../tx/hash.js';
import { FetchedTxs } from './fetched-txs.js';
import { MAX_TX_REQUEST, TAG_TX_REQUEST, TAG_TX_TEXTS, decodeTxBatch, encodeTxBatch, envelope, type RelayedTx } from './envelope.js';

/** Compact proposals kept while their missing texts are fetched (a few rounds' worth). */
const MAX_AWAITING = 8;
/** Texts in one answer: a sealed frame holds at most 4 MiB. */
const ANSWER_MAX_CHARS = 3 * 1024 * 1024;
/** Requests answered per peer per height: a block's worth in chunks, and a few rounds. */
const MAX_ANSWERS_PER_PEER = 32;
/** A request unanswered this long is sent again when a proposal needs that peer. */
const REQUEST_RETRY_MS = 1000;

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

interface Awaited {
  readonly from: string;
  readonly body: Uint8Array;
  readonly height: number;
  /** `origin:hash` of what is still missing. */
  readonly missing: Set<string>;
  askedAll: boolean;
}

/**
 * Fetching the transaction texts a compact proposal names and this node does not hold (it was
 * down when they were relayed, or refused them: mempool full, a nonce it had not seen confirmed).
 * Only a proposal whose signature verified and whose signer is the round's proposer is kept
 * (the replica checks both before `await`), one per (height, round, block); its sender, who
 * decoded it and so holds every text, is asked first, then the other peers once if the sender
 * could not supply them. Texts are accepted only from a peer with a request outstanding and only
 * for ids asked of it: anything else ends that request unhashed and counts as misbehaviour.
 */
export class ProposalTxFetch {
  readonly fetched = new FetchedTxs();
  readonly counts = { requested: 0, received: 0 };
  private readonly awaiting = new Map<string, Awaited>();
  /** Ids asked of each peer and not yet received, with when they were last sent. */
  private readonly asked = new Map<string, { ids: Set<string>; sentAt: number }>();
  private readonly answered = new Map<string, number>();
  private height = 0;

  constructor(private readonly d: ProposalTxFetchDeps) {}

  /** A new height: what earlier heights waited for and asked is dropped. */
  enterHeight(height: number): void {
    this.height = height;
    for (const [key, a] of this.awaiting) if (a.height < height) this.awaiting.delete(key);
    this.asked.clear();
    this.answered.clear();
  }

  isAwaiting(key: string): boolean {
    return this.awaiting.has(key);
  }

  get waiting(): number {
    return this.awaiting.size;
  }

  /** Waits for `missing` (as `{origin, hash}`) before `body` can be decoded; asks `from` for them. */
  await(from: string, body: Uint8Array, key: string, height: number, missing: ReadonlyArray<{ origin: RelayedTx['origin']; hash: string }>): void {
    if (height < this.height || this.awaiting.has(key)) return;
    if (this.awaiting.size >= MAX_AWAITING) this.awaiting.delete(this.awaiting.keys().next().value!);
    this.awaiting.set(key, { from, body, height, missing: new Set(missing.map((m) => `${m.origin}:${m.hash}`)), askedAll: false });
    this.ask(from, missing.map((m) => m.hash));
  }

  /** The proposal decoded without waiting (a re-send, or the texts came by relay). */
  settled(key: string): void {
    this.awaiting.delete(key);
  }

  /** A transaction was admitted here: a proposal that waited only for such texts can go on. */
  onPending(tx: RelayedTx & { readonly hash: string }): void {
    if (this.awaiting.size > 0) this.resolve(new Set([`${tx.origin}:${tx.hash}`]));
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
    let chars = 0;
    let cut = false;
    for (const h of new Set(hashes)) {
      const tx = this.d.pendingTx(h) ?? this.fetched.get(h);
      if (!tx) continue;
      chars += tx.canonical.length;
      if (chars > ANSWER_MAX_CHARS) {
        cut = true;
        break;
      }
      found.push({ origin: tx.origin, canonical: tx.canonical });
    }
    // Always answered, empty if need be, and saying whether it was cut at the frame bound: the
    // asker asks again for the rest of a cut answer, and other peers for what a whole one lacks.
    this.d.send(peer, envelope(TAG_TX_TEXTS, encodeTxAnswer(found, cut)));
  }

  /** An answer: ends the request to that peer; texts not asked of it are refused unhashed. */
  onTexts(peer: string, answer: TxAnswer): void {
    const { txs, cut } = answer;
    const request = this.asked.get(peer);
    if (!request) return;
    this.asked.delete(peer);
    const got = new Set<string>();
    for (const t of txs) {
      const hash = hashOfCanonical(t.canonical);
      if (!request.ids.has(hash)) {
        this.d.misbehaved(peer, 'transaction text that was not asked for');
        break;
      }
      request.ids.delete(hash);
      this.fetched.put(hash, t);
      got.add(`${t.origin}:${hash}`);
    }
    this.counts.received += got.size;
    this.resolve(got);
    // What this peer did not send: the rest of a cut answer is asked of it again; what a whole
    // answer lacks is asked of every other peer, once per proposal.
    for (const a of this.awaiting.values()) {
      const still = [...a.missing].map((m) => m.slice(m.indexOf(':') + 1)).filter((h) => request.ids.has(h));
      if (still.length === 0) continue;
      if (cut) this.ask(peer, still);
      else if (!a.askedAll) {
        a.askedAll = true;
        for (const other of this.d.peers()) if (other !== peer) this.ask(other, still);
      }
    }
  }

  private ask(peer: string, hashes: readonly string[]): void {
    const now = this.d.now();
    const open = this.asked.get(peer);
    const fresh = open && now - open.sentAt < REQUEST_RETRY_MS;
    const ids = open ? open.ids : new Set<string>();
    for (const h of hashes) ids.add(h);
    // One request in flight per peer: ids added meanwhile are covered when its answer comes
    // back (asked again if still missing), or by a resend once it is overdue.
    if (fresh) return;
    const list = [...ids].slice(0, MAX_TX_REQUEST);
    this.asked.set(peer, { ids, sentAt: now });
    this.counts.requested += list.length;
    this.d.send(peer, envelope(TAG_TX_REQUEST, { hashes: list }));
  }

  /** Removes `got` from every waiting proposal; delivers those with nothing left to wait for. */
  private resolve(got: ReadonlySet<string>): void {
    if (got.size === 0) return;
    for (const [key, a] of this.awaiting) {
      for (const m of got) a.missing.delete(m);
      if (a.missing.size === 0) {
        this.awaiting.delete(key);
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

/** An answer on the wire: one byte (1 cut, 0 whole), then the batch encoding (nothing if empty). */
export function encodeTxAnswer(txs: readonly RelayedTx[], cut: boolean): Uint8Array {
  const batch = txs.length > 0 ? encodeTxBatch(txs) : new Uint8Array(0);
  const out = new Uint8Array(batch.length + 1);
  out[0] = cut ? 1 : 0;
  out.set(batch, 1);
  return out;
}

export function decodeTxAnswer(body: Uint8Array): TxAnswer | null {
  if (body.length < 1 || body[0]! > 1) return null;
  const cut = body[0] === 1;
  if (body.length === 1) return { txs: [], cut };
  const txs = decodeTxBatch(body.subarray(1));
  return txs ? { txs, cut } : null;
}
