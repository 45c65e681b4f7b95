/**
 * Turning a handler's outcome (value, reply(), or throw) into bytes on the wire. Both backends
 * write exactly what this produces, so status codes, headers and error bodies cannot differ.
 */
import type { Logger } from 'pino';
import { isChainError } from '../errors.js';
import { stringify } from '../codec/json.js';
import type { HttpReply } from './server.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const REPLY = Symbol('HttpReply');

/** An explicit status, extra headers, or a non-JSON body (e.g. 'text/plain; version=0.0.4' for /metrics). */
export function reply(status: number, body: unknown, options: { headers?: Record<string, string>; contentType?: string } = {}): HttpReply {
  if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError(`reply status must be 200-599, got ${status}`);
  const r = { [REPLY]: true, status, body, headers: options.headers, contentType: options.contentType };
  return r as unknown as HttpReply;
}

const ENCODED = Symbol('encoded body');

/**
 * reply() for an answer served many times unchanged (the gateway's cached node reads): its JSON
 * body is encoded here, once, and every request it answers sends those bytes instead of
 * serialising the body again (docs/performance.md, "Gateway"). The body must not change
 * afterwards; the reply is frozen, and `body` stays readable (CHAIN_VALIDATE_RESPONSES checks it).
 * `options.headers` are taken as they are now: a later change to that object is not sent.
 */
export function encodedReply(status: number, body: unknown, options: { headers?: Record<string, string> } = {}): HttpReply {
  const r = reply(status, body, options) as unknown as Record<string | symbol, unknown>;
  r[ENCODED] = Buffer.from(stringify(body), 'utf8');
  // The whole answer, headers checked, made once too; a reply whose headers are refused is left
  // to successResponse, which answers it with the logged 500 any such reply gets.
  const answer = replyAnswer(r as unknown as HttpReply);
  if (answer !== undefined) r[PREPARED] = Object.freeze({ ...answer, headers: Object.freeze({ ...answer.headers }) });
  return Object.freeze(r) as unknown as HttpReply;
}

const PREPARED = Symbol('prepared answer');

/**
 * A streamed answer (JSON Lines exports): status 200, no Content-Length (chunked), the chunks
 * written as `source` yields them, each only once the client took the previous ones
 * (backpressure), so memory stays flat however long the answer. Refusals (401, 400) must be
 * thrown before the stream is returned: once the status is on the wire, a failing source can
 * only cut the connection.
 */
export function streamReply(source: AsyncIterable<string | Uint8Array>, options: { contentType: string; headers?: Record<string, string> }): HttpReply {
  return { ...(reply(200, null, options) as unknown as Record<string | symbol, unknown>), stream: source } as unknown as HttpReply;
}

/** The chunks of a streamed reply, as bytes. */
async function* asBytes(source: AsyncIterable<string | Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const chunk of source) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

export function isHttpReply(value: unknown): value is HttpReply {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[REPLY] === true;
}

/** Everything a backend needs to write one response. Header names are as they go on the wire. */
export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Close the connection after this response (the request body was not, or not fully, read). */
  readonly closeConnection: boolean;
  /** HEAD: send the headers (Content-Length included) but not the body. */
  readonly omitBody: boolean;
  /** A streamed body (streamReply): written chunk by chunk after the headers, instead of `body`. */
  readonly stream?: AsyncIterable<Uint8Array>;
}

/** The final response for a handler result; never throws (an unencodable result becomes a 500). */
export function successResponse(result: unknown, log: Logger): SuccessAnswer {
  try {
    if (isHttpReply(result)) {
      const prepared = (result as unknown as Record<symbol, SuccessAnswer | undefined>)[PREPARED];
      if (prepared !== undefined) return prepared;
      const contentType = result.contentType ?? JSON_CONTENT_TYPE;
      const stream = (result as unknown as { stream?: AsyncIterable<string | Uint8Array> }).stream;
      if (stream !== undefined) {
        checkHeaders({ ...(result.headers ?? {}), 'Content-Type': contentType });
        return { status: result.status, headers: { ...(result.headers ?? {}), 'Content-Type': contentType }, body: Buffer.alloc(0), stream: asBytes(stream) };
      }
      return replyAnswerOrThrow(result);
    }
    if (result === undefined) return { status: 204, headers: {}, body: Buffer.alloc(0) };
    return { status: 200, headers: { 'Content-Type': JSON_CONTENT_TYPE }, body: Buffer.from(stringify(result), 'utf8') };
  } catch (e: unknown) {
    return errorResponse(e, log);
  }
}

type SuccessAnswer = { status: number; headers: Readonly<Record<string, string>>; body: Buffer; stream?: AsyncIterable<Uint8Array> };

/** The answer for a (not streamed) reply; throws a TypeError for headers it may not carry. */
function replyAnswerOrThrow(result: HttpReply): SuccessAnswer {
  const contentType = result.contentType ?? JSON_CONTENT_TYPE;
  const own = result.headers ?? {};
  checkHeaders(own);
  const reserved = Object.keys(own).find((n) => RESERVED_HEADERS.has(n.toLowerCase()));
  if (reserved !== undefined) throw new TypeError(`reply() may not set ${reserved}${reserved.toLowerCase() === 'content-type' ? ' (use the contentType option)' : ''}`);
  checkHeaders({ 'Content-Type': contentType });
  const encoded = (result as unknown as Record<symbol, Buffer | undefined>)[ENCODED];
  return { status: result.status, headers: { ...own, 'Content-Type': contentType }, body: encoded ?? encodeBody(result.body, contentType) };
}

function replyAnswer(result: HttpReply): SuccessAnswer | undefined {
  try {
    return replyAnswerOrThrow(result);
  } catch {
    return undefined;
  }
}

/** A ChainError answers with its own status and toJSON(); anything else is a logged 500 whose cause stays private. */
export function errorResponse(e: unknown, log: Logger): { status: number; headers: Record<string, string>; body: Buffer } {
  if (isChainError(e)) {
    try {
      return { status: e.status, headers: { 'Content-Type': JSON_CONTENT_TYPE }, body: Buffer.from(stringify(e), 'utf8') };
    } catch (encodeError: unknown) {
      // A ChainError whose `extra` cannot be encoded is a server bug, answered like any other.
      log.error({ err: encodeError, cause: e }, 'ChainError body could not be encoded');
      return internalError();
    }
  }
  log.error({ err: e }, 'request handler failed');
  return internalError();
}

function internalError(): { status: number; headers: Record<string, string>; body: Buffer } {
  return { status: 500, headers: { 'Content-Type': JSON_CONTENT_TYPE }, body: Buffer.from(stringify({ error: 'internal error' }), 'utf8') };
}

/** Later records win; names compare case-insensitively, as node's setHeader does, so uWS never writes a header twice. */
export function mergeHeaders(...records: Readonly<Record<string, string>>[]): Record<string, string> {
  const byLower = new Map<string, [string, string]>();
  for (const record of records) for (const [name, value] of Object.entries(record)) byLower.set(name.toLowerCase(), [name, value]);
  return Object.fromEntries(byLower.values());
}

// Headers the server itself owns: framing and connection handling must match what it actually does.
const RESERVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'content-type']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

// uWS writes header bytes verbatim, so a CR/LF from a handler would split the response; node would
// throw instead. Checking here gives both backends the same answer: a logged 500.
function checkHeaders(headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new TypeError(`invalid response header name ${JSON.stringify(name)}`);
    if (/[\r\n\0]/.test(value)) throw new TypeError(`invalid characters in response header ${name}`);
  }
}

function encodeBody(body: unknown, contentType: string): Buffer {
  if (isJsonType(contentType)) return Buffer.from(stringify(body), 'utf8');
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError(`a ${contentType} reply body must be a string or bytes`);
}

function isJsonType(contentType: string): boolean {
  const base = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return base === 'application/json' || base.endsWith('+json');
}
