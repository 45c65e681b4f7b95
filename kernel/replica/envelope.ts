import { isHash0x } from '../codec/hex.js';
import { stringify } from '../codec/json.js';
import { utf8Bytes } from '../codec/utf8.js';

/**
 * Replica messages on the P2P link. One tag byte, then JSON: consensus messages (votes,
 * proposals, commits) in the consensus layer's own encoding, and the replica's own small
 * protocol for status, catch-up requests and evidence gossip.
 */
export const TAG_CONSENSUS = 1;
export const TAG_STATUS = 2;
export const TAG_SYNC_REQUEST = 3;
export const TAG_EVIDENCE = 4;
export const TAG_TX = 5;
export const TAG_TX_BATCH = 6;
/** Ids of transactions a compact proposal named that the receiver does not hold: `{"hashes":[…]}`. */
export const TAG_TX_REQUEST = 7;
/**
 * Texts answering a request (a cut flag byte, then the batch encoding; proposal-tx-fetch.ts), not
 * admitted, only kept for decoding proposals. The same byte opens a WAL entry holding a
 * proposal's transaction texts in the batch encoding (consensus messages in the WAL are JSON and
 * open with `{`).
 */
export const TAG_TX_TEXTS = 8;
/**
 * One validator's signature of a light-client commit header (decisions.md §64):
 * `{"height", "validator", "signature"}` (kernel/replica/light-client-headers.ts).
 */
export const TAG_LC_HEADER_SIGNATURE = 9;
/** Most ids in one request: a block's transaction bound (block-codec MAX_TXS). */
export const MAX_TX_REQUEST = 20_000;

export interface StatusMessage {
  /** Last committed height of the sender. */
  readonly height: number;
  /** Lowest height the sender still serves to peers catching up. */
  readonly base: number;
}

export interface SyncRequest {
  readonly from: number;
  readonly to: number;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function envelope(tag: number, payload: Uint8Array | unknown): Uint8Array {
  const body = payload instanceof Uint8Array ? payload : utf8Bytes(stringify(payload));
  const out = new Uint8Array(body.length + 1);
  out[0] = tag;
  out.set(body, 1);
  return out;
}

export function openEnvelope(bytes: Uint8Array): { tag: number; body: Uint8Array } | null {
  if (bytes.length < 1) return null;
  return { tag: bytes[0]!, body: bytes.subarray(1) };
}

export function parseJsonBody(body: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8Decoder.decode(body);
  } catch {
    return undefined;
  }
  return parseJsonText(text);
}

/** JSON.parse that answers undefined for anything that is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

export function parseStatus(x: unknown): StatusMessage | null {
  if (typeof x !== 'object' || x === null) return null;
  const { height, base } = x as Record<string, unknown>;
  return isInt(height) && isInt(base) ? { height, base } : null;
}

export function parseSyncRequest(x: unknown): SyncRequest | null {
  if (typeof x !== 'object' || x === null) return null;
  const { from, to } = x as Record<string, unknown>;
  return isInt(from) && isInt(to) && from >= 1 && to >= from ? { from, to } : null;
}

export function parseTxRequest(x: unknown): string[] | null {
  if (typeof x !== 'object' || x === null) return null;
  const { hashes } = x as Record<string, unknown>;
  if (!Array.isArray(hashes) || hashes.length === 0 || hashes.length > MAX_TX_REQUEST) return null;
  return hashes.every(isHash0x) ? hashes : null;
}

export interface RelayedTx {
  readonly origin: 'signed' | 'system';
  readonly canonical: string;
}

/** The origin byte of both relay messages: 0 signed, 1 system; anything else is malformed. */
const originByte = (origin: RelayedTx['origin']): number => (origin === 'signed' ? 0 : 1);
const originOf = (byte: number): RelayedTx['origin'] => (byte === 0 ? 'signed' : 'system');

/**
 * A relayed transaction: one origin byte, then its canonical JSON text as UTF-8. Binary rather
 * than JSON, so a 10 KB body is neither escaped nor re-serialised on the way. `head` (the
 * envelope tag) is written first in the same buffer, as in encodeTxBatch: the text is encoded
 * once, in place, instead of encoded, copied behind the origin byte and copied again behind the tag.
 */
export function encodeTxRelay(origin: RelayedTx['origin'], canonical: string, head: readonly number[] = []): Uint8Array {
  const len = Buffer.byteLength(canonical, 'utf8');
  const out = Buffer.allocUnsafeSlow(head.length + 1 + len);
  out.set(head);
  out[head.length] = originByte(origin);
  out.write(canonical, head.length + 1, len, 'utf8');
  return plainBytes(out);
}

export function decodeTxRelay(body: Uint8Array): RelayedTx | null {
  if (body.length < 3 || body[0]! > 1) return null;
  try {
    return { origin: originOf(body[0]!), canonical: utf8Decoder.decode(body.subarray(1)) };
  } catch {
    return null;
  }
}

/**
 * Transactions admitted here within one event-loop turn, relayed as one message: one sealed
 * frame, one write and one receive event per peer instead of one per transaction. Per
 * transaction: the origin byte, the text's UTF-8 length (u32, big-endian), the text.
 *
 * `head` is written before the batch in the same buffer (an envelope tag, a flag): a proposal's
 * texts are ~2 MB, and wrapping them afterwards copied all of it once more per wrapper.
 */
export function encodeTxBatch(txs: readonly RelayedTx[], head: readonly number[] = []): Uint8Array {
  // Sized first and written in place: no intermediate copy of each 10 KB text.
  const lengths = txs.map((t) => Buffer.byteLength(t.canonical, 'utf8'));
  const out = Buffer.allocUnsafeSlow(lengths.reduce((n, len) => n + 5 + len, head.length));
  out.set(head);
  let at = head.length;
  txs.forEach((t, i) => {
    const len = lengths[i]!;
    out[at] = originByte(t.origin);
    out.writeUInt32BE(len, at + 1);
    out.write(t.canonical, at + 5, len, 'utf8');
    at += 5 + len;
  });
  return plainBytes(out);
}

/**
 * The same bytes as a plain Uint8Array, as every other message is: a Buffer's slice() is a view,
 * not the copy the in-memory network hands each receiver.
 */
function plainBytes(out: Buffer): Uint8Array {
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** A relayed transaction with the JSON object its text parsed to. */
export interface ParsedRelayedTx extends RelayedTx {
  readonly body: Record<string, unknown>;
}

/**
 * Each relayed text parsed, or null when any is not a JSON object (or `txs` is null, a relay that
 * did not decode): the relay is refused whole, as a peer's misbehaviour.
 */
export function parseRelayedTxs(txs: readonly RelayedTx[] | null): ParsedRelayedTx[] | null {
  if (!txs) return null;
  const out: ParsedRelayedTx[] = [];
  for (const t of txs) {
    const body = parseJsonText(t.canonical);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    out.push({ origin: t.origin, canonical: t.canonical, body: body as Record<string, unknown> });
  }
  return out;
}

/** null for anything malformed: a bad origin, a length past the end, text that is not UTF-8, an empty batch. */
export function decodeTxBatch(body: Uint8Array): RelayedTx[] | null {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: RelayedTx[] = [];
  let at = 0;
  while (at < body.length) {
    if (body.length - at < 5 || body[at]! > 1) return null;
    const len = view.getUint32(at + 1, false);
    const end = at + 5 + len;
    if (len < 2 || end > body.length) return null;
    let canonical: string;
    try {
      canonical = utf8Decoder.decode(body.subarray(at + 5, end));
    } catch {
      return null;
    }
    out.push({ origin: originOf(body[at]!), canonical });
    at = end;
  }
  return out.length > 0 ? out : null;
}
