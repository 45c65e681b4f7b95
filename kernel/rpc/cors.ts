/**
 * CORS from one setting: '*' (any origin), a comma-separated list of origins, or '' (no CORS
 * headers, so browsers on other origins are refused by their own same-origin policy).
 */

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const DEFAULT_ALLOWED_HEADERS = 'Content-Type, Authorization';
// Browsers hide non-safelisted response headers from scripts; a client backing off needs this one.
const EXPOSED_HEADERS = 'Retry-After';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export class CorsPolicy {
  private readonly any: boolean;
  private readonly origins: ReadonlySet<string>;

  constructor(setting: string) {
    const entries = setting
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    this.any = entries.includes('*');
    this.origins = new Set(entries.filter((s) => s !== '*').map(normalizeOrigin));
  }

  /** Whether a browser page served from `origin` may read our responses. */
  allows(origin: string | undefined): boolean {
    if (origin === undefined || origin === '') return false;
    return this.any || this.origins.has(normalizeOrigin(origin));
  }

  /** Headers for an ordinary response; empty when the origin is absent or not allowed. */
  responseHeaders(origin: string | undefined): Record<string, string> {
    if (!this.allows(origin)) return this.varyOnly();
    return {
      // With a list the answer depends on the request's Origin, so caches must key on it.
      'Access-Control-Allow-Origin': this.any ? '*' : (origin as string),
      'Access-Control-Expose-Headers': EXPOSED_HEADERS,
      ...this.varyOnly(),
    };
  }

  /** Headers for a preflight (OPTIONS) answer; no Access-Control-* at all for a refused origin. */
  preflightHeaders(origin: string | undefined, requestedHeaders: string | undefined): Record<string, string> {
    if (!this.allows(origin)) return this.varyOnly();
    return {
      ...this.responseHeaders(origin),
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
      'Access-Control-Allow-Headers': requestedHeaders !== undefined && requestedHeaders !== '' ? requestedHeaders : DEFAULT_ALLOWED_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    };
  }

  private varyOnly(): Record<string, string> {
    return this.any || this.origins.size === 0 ? {} : { Vary: 'Origin' };
  }
}

// Origins compare case-insensitively on scheme and host; a trailing slash in the config is a typo, not a different origin.
function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}
