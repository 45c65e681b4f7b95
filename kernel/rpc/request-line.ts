/**
 * What a request line must be before the router sees it, decided here once so that both backends
 * (and the node backend's answers to requests its parser refused) give the same JSON refusal.
 *
 * Paths: the router compares segments as sent, but whatever sits in front of or behind this server
 * may not. A WHATWG URL parser, which undici and fetch use, treats '\' as '/' and resolves '..' and
 * '%2e%2e' segments, so a gateway that forwards `/api/v1/accounts/..\..\..\peers` as it came
 * reaches the node's `/peers`. A path that any parser could read as a different path is refused
 * instead of being served under one reading: a backslash (raw or '%5c'), an encoded slash
 * ('%2f', which would turn one parameter into several segments once decoded) and a '.' or '..'
 * segment (raw or percent-encoded).
 */
import { ChainError, badRequest } from '../errors.js';

/**
 * Longest request target (path plus query) served. Part 2 names no limit; 8 KiB is what common
 * servers and proxies accept on a request line (nginx's 8k header buffers, Apache's 8190), far
 * above any URL of this API, whose parameters are addresses, hashes and small numbers.
 */
export const MAX_URL_LENGTH = 8 * 1024;

/**
 * Request heads are refused from this size on, counted as node's parser counts them (target,
 * header names and values; no separators), so that uWS, which hands over any head that arrived in
 * one read, refuses the same heads as node. It is node's default, set on its parser as well so
 * that a `--max-http-header-size` flag cannot move one backend's limit alone.
 */
export const MAX_HEAD_BYTES = 16 * 1024;

export function urlTooLongError(): ChainError {
  return new ChainError(414, `request URL too long (limit ${MAX_URL_LENGTH} bytes)`);
}

export function headTooLargeError(): ChainError {
  return new ChainError(431, `request header fields too large (limit ${MAX_HEAD_BYTES} bytes)`);
}

/** Throws 414, then 431; first of all checks, so that nothing else walks a megabyte of target. */
export function checkRequestSize(url: string, headers: Readonly<Record<string, string>>): void {
  if (url.length > MAX_URL_LENGTH) throw urlTooLongError();
  let head = url.length;
  for (const [name, value] of Object.entries(headers)) head += name.length + value.length;
  if (head >= MAX_HEAD_BYTES) throw headTooLargeError();
}

/**
 * The methods this server implements: those a route can be registered for, HEAD (served by the
 * GET route) and OPTIONS (CORS preflight). Any other is answered 501 whatever the path.
 */
export const IMPLEMENTED_METHODS: readonly string[] = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];
const IMPLEMENTED = new Set(IMPLEMENTED_METHODS);

export function isImplementedMethod(method: string): boolean {
  return IMPLEMENTED.has(method);
}

/** `method` is left out where it could not be read (node's parser refused the request line). */
export function notImplementedError(method?: string): ChainError {
  return new ChainError(501, method === undefined ? 'method not implemented' : `method not implemented: ${method}`, `this server implements ${IMPLEMENTED_METHODS.join(', ')}`);
}

/** Throws a 400 ChainError for a path that does not start with '/' or that another parser could read as a different path. */
export function checkPath(path: string): void {
  if (!path.startsWith('/') || path.includes('\\')) throw malformedPathError();
  for (const segment of path.split('/')) {
    if (!segment.includes('%') && !segment.startsWith('.')) continue;
    const decoded = decodeOrRaw(segment);
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\')) throw malformedPathError();
  }
}

// Malformed percent-encoding is not this check's concern: the router answers it for a parameter,
// and a static segment that cannot be decoded matches no route.
function decodeOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function malformedPathError(): ChainError {
  return badRequest('malformed request path', "a path may not hold backslashes, encoded slashes or '.' and '..' segments, raw or percent-encoded");
}
