import { stringify } from '../codec/json.js';

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

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function envelope(tag: number, payload: Uint8Array | unknown): Uint8Array {
  const body = payload instanceof Uint8Array ? payload : utf8.encode(stringify(payload));
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

/**
 * A relayed transaction: one origin byte (0 signed, 1 system), then its canonical JSON text as
 * UTF-8. Binary rather than JSON, so a 10 KB body is neither escaped nor re-serialised on the way.
 */
export function encodeTxRelay(origin: 'signed' | 'system', canonical: string): Uint8Array {
  const text = utf8.encode(canonical);
  const out = new Uint8Array(text.length + 1);
  out[0] = origin === 'signed' ? 0 : 1;
  out.set(text, 1);
  return out;
}

export function decodeTxRelay(body: Uint8Array): { origin: 'signed' | 'system'; canonical: string } | null {
  if (body.length < 3 || body[0]! > 1) return null;
  try {
    return { origin: body[0] === 0 ? 'signed' : 'system', canonical: utf8Decoder.decode(body.subarray(1)) };
  } catch {
    return null;
  }
}
