/**
 * What a request line must be before the router sees it, decided here once so that both backends
 * give the same JSON refusal.
 *
 * Paths: the router compares segments as sent, but whatever sits in front of or behind this server
 * may not. A WHATWG URL parser, which undici and fetch use, treats '\' as '/' and resolves '..' and
 * '%2e%2e' segments, so a gateway that forwards `/api/v1/accounts/..\..\..\peers` as it came
 * reaches the node's `/peers`. A path that any parser could read as a different path is refused
 * instead of being served under one reading: a backslash (raw or '%5c'), an encoded slash
 * ('%2f', which would turn one parameter into several segments once decoded) and a '.' or '..'
 * segment (raw or percent-encoded).
 */
import { badRequest } from '../errors.js';
import type { ChainError } from '../errors.js';

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
