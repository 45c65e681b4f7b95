/**
 * Method + path matching with `:param` segments, shared by both backends (uWS only ever sees one
 * catch-all route) so that route precedence and the 404/405 answers are identical.
 *
 * Rules:
 *  - A pattern is '/'-separated segments; a segment starting with ':' captures one non-empty path
 *    segment, percent-decoded. No wildcards.
 *  - A trailing slash is ignored on both sides ('/status/' matches '/status').
 *  - Static segments win over params position by position ('/blocks/latest' beats '/blocks/:h'
 *    whatever the registration order).
 *  - A path that exists under other methods answers 405 with an Allow header, not 404: the client
 *    learns its URL is right and its method wrong. HEAD is served by the GET route.
 */
import { ChainError, badRequest } from '../errors.js';
import type { HttpMethod, RouteHandler } from './server.js';

interface CompiledRoute {
  readonly method: HttpMethod;
  readonly pattern: string;
  /** Static text, or null for a param slot. */
  readonly statics: readonly (string | null)[];
  readonly paramNames: readonly (string | null)[];
  /** Identifies patterns that match the same paths: '/a/:x' and '/a/:y' collide. */
  readonly shape: string;
  readonly handler: RouteHandler;
}

export type RouteMatch =
  | { readonly kind: 'found'; readonly handler: RouteHandler; readonly params: Record<string, string> }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' };

export class Router {
  /**
   * Routes by segment count, each count's indexed by one segment: a path is only scored against
   * the routes that could match it, so a lookup costs about the same with 3 routes or 150 (the
   * gateway serves ~150; scanning them all was a tenth of a cached read, docs/performance.md
   * "Gateway").
   */
  private readonly byLength = new Map<number, LengthBucket>();

  add(method: HttpMethod, pattern: string, handler: RouteHandler): void {
    const compiled = compile(method, pattern, handler);
    let bucket = this.byLength.get(compiled.statics.length);
    if (bucket === undefined) this.byLength.set(compiled.statics.length, (bucket = new LengthBucket()));
    // A shape fixes the segment count, so a route it collides with is in this bucket.
    const clash = bucket.sameShape(compiled);
    if (clash !== undefined) throw new Error(`route ${method} ${pattern} collides with ${clash.method} ${clash.pattern}`);
    bucket.add(compiled);
  }

  /** Throws a 400 ChainError for a param that is not valid percent-encoding. */
  match(method: string, path: string): RouteMatch {
    const segments = splitPath(path);
    const bucket = this.byLength.get(segments.length);
    if (bucket === undefined) return NOT_FOUND;
    const keyed = bucket.keyed(segments);
    const wild = bucket.wild;
    const wanted = method === 'HEAD' ? 'GET' : method;
    let best: CompiledRoute | undefined;
    let bestScore = -1;
    let anyMatched = false;
    // Two routes of one method never tie: an equal score over the same segments means the same shape, refused by add().
    for (let l = 0; l < 2; l++) {
      for (const route of l === 0 ? keyed : wild) {
        const score = matchScore(route, segments);
        if (score < 0) continue;
        anyMatched = true;
        if (route.method === wanted && score > bestScore) {
          best = route;
          bestScore = score;
        }
      }
    }
    if (best !== undefined) return { kind: 'found', handler: best.handler, params: extractParams(best, segments) };
    if (!anyMatched) return NOT_FOUND;
    // The rare refusal: which methods the path has, for the 405's Allow.
    const allow = new Set<string>();
    for (const route of [...keyed, ...wild]) {
      if (matchScore(route, segments) < 0) continue;
      allow.add(route.method);
      if (route.method === 'GET') allow.add('HEAD');
    }
    return { kind: 'method-not-allowed', allow: [...allow, 'OPTIONS'].sort() };
  }
}

const NO_ROUTES: readonly CompiledRoute[] = Object.freeze([]);

/**
 * The routes of one segment count, indexed by the position whose static text tells most of them
 * apart (`/api/v1/<here>/:x`): a path's candidates are the routes with its text there plus those
 * with a param there. A route with other text at that position cannot match, so nothing is missed.
 */
class LengthBucket {
  private readonly routes: CompiledRoute[] = [];
  private position = -1;
  private byText = new Map<string, CompiledRoute[]>();
  /** The routes with a param at the indexed position: candidates for every path. */
  wild: readonly CompiledRoute[] = NO_ROUTES;

  add(route: CompiledRoute): void {
    this.routes.push(route);
    // Routes are added at start-up and when a service plugin loads, a few hundred at most: rebuilding is cheaper than being clever.
    let bestDistinct = 0;
    for (let i = 0; i < route.statics.length; i++) {
      const distinct = new Set(this.routes.map((r) => r.statics[i]).filter((t) => t !== null)).size;
      if (distinct > bestDistinct) {
        bestDistinct = distinct;
        this.position = i;
      }
    }
    this.byText = new Map();
    const wild: CompiledRoute[] = [];
    for (const r of this.routes) {
      const text = this.position < 0 ? null : (r.statics[this.position] ?? null);
      if (text === null) {
        wild.push(r);
        continue;
      }
      const list = this.byText.get(text);
      if (list === undefined) this.byText.set(text, [r]);
      else list.push(r);
    }
    this.wild = wild;
  }

  /** A route of the same method and shape (the same paths, the same params), if one was added. */
  sameShape(route: CompiledRoute): CompiledRoute | undefined {
    return this.routes.find((r) => r.method === route.method && r.shape === route.shape);
  }

  /** The routes with the path's own text at the indexed position. */
  keyed(segments: readonly string[]): readonly CompiledRoute[] {
    return this.position < 0 ? NO_ROUTES : (this.byText.get(segments[this.position] as string) ?? NO_ROUTES);
  }
}

const NOT_FOUND: RouteMatch = Object.freeze({ kind: 'not-found' });

/** Past this many segments a match score would no longer be an exact integer (2^53). */
const MAX_SEGMENTS = 52;

function compile(method: HttpMethod, pattern: string, handler: RouteHandler): CompiledRoute {
  if (!pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${pattern}`);
  const segments = splitPath(pattern);
  if (segments.length > MAX_SEGMENTS) throw new Error(`route pattern has more than ${MAX_SEGMENTS} segments: ${pattern}`);
  const seen = new Set<string>();
  const statics: (string | null)[] = [];
  const paramNames: (string | null)[] = [];
  for (const seg of segments) {
    if (seg.startsWith(':')) {
      const name = seg.slice(1);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`bad parameter name '${seg}' in ${pattern}`);
      if (seen.has(name)) throw new Error(`parameter '${name}' repeated in ${pattern}`);
      seen.add(name);
      statics.push(null);
      paramNames.push(name);
    } else {
      statics.push(seg);
      paramNames.push(null);
    }
  }
  const shape = statics.map((s) => (s === null ? ':' : '/' + s)).join('');
  return { method, pattern, statics, paramNames, shape, handler };
}

// Leading and trailing empty segments dropped ('/a/' and 'a' are ['a']); inner ones kept ('//a' is ['', 'a']).
function splitPath(path: string): string[] {
  const parts = path.split('/');
  const start = parts[0] === '' ? 1 : 0;
  const end = parts.length > start && parts[parts.length - 1] === '' ? parts.length - 1 : parts.length;
  return start === 0 && end === parts.length ? parts : parts.slice(start, end);
}

// A bit per segment, most significant first: 1 for a static hit, 0 for a param. Between routes of
// one length the larger number is exactly "the first differing position prefers static". -1: no match.
function matchScore(route: CompiledRoute, segments: readonly string[]): number {
  let score = 0;
  for (let i = 0; i < segments.length; i++) {
    const want = route.statics[i];
    const got = segments[i] as string;
    if (want === null) {
      if (got === '') return -1;
      score *= 2;
    } else if (want === got) {
      score = score * 2 + 1;
    } else {
      return -1;
    }
  }
  return score;
}

function extractParams(route: CompiledRoute, segments: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  const names = route.paramNames;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (name === null || name === undefined) continue;
    const raw = segments[i] as string;
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      throw badRequest(`malformed percent-encoding in path parameter '${name}'`);
    }
  }
  return params;
}

export function notFoundError(method: string, path: string): ChainError {
  return new ChainError(404, `not found: ${method} ${path}`);
}

export function methodNotAllowedError(method: string, path: string, allow: readonly string[]): ChainError {
  return new ChainError(405, `method not allowed: ${method} ${path}`, `allowed: ${allow.join(', ')}`);
}
