/**
 * Request bodies: collected chunk by chunk against a byte limit (so an oversize body is refused
 * as soon as it crosses the limit instead of after it has been held in memory), then JSON-parsed.
 */
import { ChainError, badRequest } from '../errors.js';

export type BodyResult =
  | { readonly kind: 'complete'; readonly bytes: Buffer }
  | { readonly kind: 'too-large' }
  /** The client went away before sending it all; there is no one left to answer. */
  | { readonly kind: 'aborted' };

/** Accumulates chunks; once past the limit it drops what it held and ignores the rest. */
export class BodyCollector {
  private chunks: Buffer[] = [];
  private size = 0;
  private over = false;

  constructor(private readonly limit: number) {}

  /** Returns false once the limit has been exceeded (the caller should stop reading). */
  push(chunk: Uint8Array): boolean {
    if (this.over) return false;
    this.size += chunk.byteLength;
    if (this.size > this.limit) {
      this.over = true;
      this.chunks = [];
      return false;
    }
    // Copied because uWS neuters its ArrayBuffer when the data callback returns.
    this.chunks.push(Buffer.from(chunk));
    return true;
  }

  result(): BodyResult {
    return this.over ? { kind: 'too-large' } : { kind: 'complete', bytes: Buffer.concat(this.chunks, this.size) };
  }
}

export function bodyTooLargeError(limit: number): ChainError {
  return new ChainError(413, `request body too large (limit ${limit} bytes)`);
}

/** A JSON request body and the text it was parsed from. */
export interface JsonBody {
  readonly value: unknown;
  readonly text: string;
}

/**
 * How deeply a request body's arrays and objects may nest. JSON.parse itself takes any depth, but
 * what handles the value afterwards recurses (JSON.stringify when the gateway forwards it,
 * schema checks, canonical hashing) and a body of 8 000 brackets overflowed the stack there: a 500
 * the route fuzzer found (issue 39). No body of this interface comes near it.
 */
export const MAX_JSON_DEPTH = 64;

/** undefined for an empty (or all-whitespace) body; throws a 400 ChainError for anything not JSON. */
export function parseJsonBody(bytes: Buffer): JsonBody | undefined {
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('malformed JSON body', 'body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  if (nestedPast(text, MAX_JSON_DEPTH)) throw badRequest('malformed JSON body', `arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    // Plain JSON.parse: integers beyond 2^53 come out as unsafe numbers, which wireAmount() rejects
    // rather than silently rounding.
    return { value: JSON.parse(text) as unknown, text };
  } catch {
    throw badRequest('malformed JSON body');
  }
}

/** Whether `text`'s brackets (those outside strings) open more than `limit` deep; one pass, no parse. */
export function nestedPast(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Content-Length as a number, undefined when absent, NaN when unparseable. */
export function declaredLength(headers: Readonly<Record<string, string>>): number | undefined {
  const raw = headers['content-length'];
  if (raw === undefined) return undefined;
  return /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
}

/** Whether the request carries a body at all (a declared non-zero length or chunked encoding). */
export function hasBody(headers: Readonly<Record<string, string>>): boolean {
  const len = declaredLength(headers);
  if (len !== undefined) return len !== 0;
  return headers['transfer-encoding'] !== undefined;
}
