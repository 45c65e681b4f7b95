import { badRequest } from '../../kernel/sdk.js';

/** Characters a segment keeps as they are, so cache keys stay readable (`chain:….human`). */
const PLAIN = /^[A-Za-z0-9:._-]+$/;
/**
 * A backslash is a separator to every WHATWG URL parser (undici's, which sends the gateway's node
 * requests, included), so it moves the upstream path as '/' does; control characters have no place
 * in an address, hash or height and only help to smuggle something past a check.
 */
const SEPARATOR_OR_CONTROL = /[/\\\u0000-\u001f\u007f]/;

const HINT = 'a path parameter is one address, hash or height: no "/", "\\", "." or ".." (encoded or not)';

/**
 * Why `value` (a path parameter, already percent-decoded) cannot be one segment of a node URL, or
 * undefined when it can. Checked after decoding, so `%2e%2e`, `%2f` and `%5c` are caught too.
 */
export function segmentProblem(value: string): string | undefined {
  if (value.length === 0) return 'is empty';
  if (value === '.' || value === '..') return 'is a dot segment';
  if (SEPARATOR_OR_CONTROL.test(value)) return 'contains a path separator or a control character';
  return undefined;
}

/**
 * One segment of a node URL built from a client's value: refused (400, naming `label`) when it
 * could change the upstream path, else percent-encoded where it is not plain, so '?', '#' and '%'
 * stay inside the segment.
 */
export function pathSegment(label: string, value: string): string {
  const problem = segmentProblem(value);
  if (problem !== undefined) throw badRequest(`${label} ${problem}`, HINT);
  return PLAIN.test(value) ? value : encodeURIComponent(value);
}

/**
 * The node path of a gateway route: the route's own pattern with each `:param` replaced by its
 * checked, encoded value. Never the client's raw path, so what is forwarded is always a route the
 * gateway serves, whatever the client's URL spelled.
 */
export function upstreamPath(pattern: string, params: Readonly<Record<string, string>>): string {
  let parts = PATTERNS.get(pattern);
  if (parts === undefined) PATTERNS.set(pattern, (parts = patternParts(pattern)));
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    out += (i === 0 ? '' : '/') + (typeof part === 'string' ? part : pathSegment(part.label, params[part.name] ?? ''));
  }
  return out;
}

type PatternPart = string | { readonly name: string; readonly label: string };

/** Route patterns (a fixed set, never a client's text) split once: a cached read builds its path per request. */
const PATTERNS = new Map<string, readonly PatternPart[]>();

function patternParts(pattern: string): PatternPart[] {
  return pattern.split('/').map((part) => (part.startsWith(':') ? { name: part.slice(1), label: `path parameter '${part.slice(1)}'` } : part));
}

/**
 * The last check before a URL goes to undici: every segment of the path must be one `pathSegment`
 * could have built. A read another service plugin builds from client input is refused here rather
 * than resolved by the URL parser into a route nobody meant to forward.
 */
export function assertForwardable(pathAndQuery: string): void {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  if (!path.startsWith('/')) throw badRequest(`node path ${JSON.stringify(path.slice(0, 80))} is not absolute`);
  for (const raw of path.slice(1).split('/')) {
    let problem: string | undefined;
    try {
      problem = segmentProblem(decodeURIComponent(raw));
    } catch {
      problem = 'is not valid percent-encoding';
    }
    if (problem !== undefined) throw badRequest(`node path segment ${JSON.stringify(raw.slice(0, 80))} ${problem}`, HINT);
  }
}
