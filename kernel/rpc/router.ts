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
  private readonly routes: CompiledRoute[] = [];

  add(method: HttpMethod, pattern: string, handler: RouteHandler): void {
    const compiled = compile(method, pattern, handler);
    const clash = this.routes.find((r) => r.method === method && r.shape === compiled.shape);
    if (clash !== undefined) throw new Error(`route ${method} ${pattern} collides with ${clash.method} ${clash.pattern}`);
    this.routes.push(compiled);
  }

  /** Throws a 400 ChainError for a param that is not valid percent-encoding. */
  match(method: string, path: string): RouteMatch {
    const segments = splitPath(path);
    const wanted = method === 'HEAD' ? 'GET' : method;
    let best: CompiledRoute | undefined;
    let bestScore = '';
    const allow = new Set<string>();
    for (const route of this.routes) {
      const score = matchScore(route, segments);
      if (score === null) continue;
      allow.add(route.method);
      if (route.method === 'GET') allow.add('HEAD');
      if (route.method !== wanted) continue;
      if (best === undefined || score > bestScore) {
        best = route;
        bestScore = score;
      }
    }
    if (best !== undefined) return { kind: 'found', handler: best.handler, params: extractParams(best, segments) };
    if (allow.size > 0) return { kind: 'method-not-allowed', allow: [...allow, 'OPTIONS'].sort() };
    return { kind: 'not-found' };
  }
}

function compile(method: HttpMethod, pattern: string, handler: RouteHandler): CompiledRoute {
  if (!pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${pattern}`);
  const segments = splitPath(pattern);
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

function splitPath(path: string): string[] {
  return path.split('/').filter((s, i, all) => !(s === '' && (i === 0 || i === all.length - 1)));
}

// '1' per static hit and '0' per param, compared as strings: the lexicographic order is exactly
// "first differing position prefers static", and equal lengths are guaranteed by the length check.
function matchScore(route: CompiledRoute, segments: readonly string[]): string | null {
  if (route.statics.length !== segments.length) return null;
  let score = '';
  for (let i = 0; i < segments.length; i++) {
    const want = route.statics[i];
    const got = segments[i] as string;
    if (want === null) {
      if (got === '') return null;
      score += '0';
    } else if (want === got) {
      score += '1';
    } else {
      return null;
    }
  }
  return score;
}

function extractParams(route: CompiledRoute, segments: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  route.paramNames.forEach((name, i) => {
    if (name === null) return;
    const raw = segments[i] as string;
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      throw badRequest(`malformed percent-encoding in path parameter '${name}'`);
    }
  });
  return params;
}

export function notFoundError(method: string, path: string): ChainError {
  return new ChainError(404, `not found: ${method} ${path}`);
}

export function methodNotAllowedError(method: string, path: string, allow: readonly string[]): ChainError {
  return new ChainError(405, `method not allowed: ${method} ${path}`, `allowed: ${allow.join(', ')}`);
}
