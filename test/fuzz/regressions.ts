import type { FuzzRequest } from './route-cases.js';

/**
 * Inputs the route fuzzer found that once broke a route (a 5xx, a dropped connection, a refusal
 * that was not the JSON error shape), kept after the fix and sent first on every run, to both
 * processes where they serve the route.
 */
export interface FuzzRegression {
  /** `METHOD /openapi/{path}` as the API reference lists the route. */
  readonly route: string;
  /** What broke, and where it was fixed. */
  readonly why: string;
  readonly request: FuzzRequest;
}

const DEEP = '['.repeat(8_000) + ']'.repeat(8_000);

export const FUZZ_REGRESSIONS: readonly FuzzRegression[] = [
  {
    route: 'POST /api/v1/faucet',
    why: 'a body nested 8 000 deep overflowed the gateway\'s JSON.stringify when it forwarded it (500); kernel/rpc/body.ts now refuses nesting past MAX_JSON_DEPTH (400)',
    request: { kind: 'hostile-field', method: 'POST', target: '/api/v1/faucet', body: `{"address":${DEEP}}`, contentType: 'application/json' },
  },
  {
    route: 'POST /api/v1/transactions',
    why: 'the same nesting, on the route every wallet posts to',
    request: { kind: 'raw-body', method: 'POST', target: '/api/v1/transactions', body: DEEP, contentType: 'application/json' },
  },
  ...(
    [
      ['GET /api/v1/nft/{address}', '/api/v1/nft/%20'],
      ['GET /api/v1/nft/owner/{address}', '/api/v1/nft/owner/'],
      ['GET /api/v1/agents/{address}', '/api/v1/agents/%20'],
      ['GET /api/v1/vault/{vault}/config', '/api/v1/vault/%20/config'],
      ['GET /api/v1/vault/{vault}/proposals', '/api/v1/vault/%20/proposals'],
      ['GET /api/v1/vault/member/{address}', '/api/v1/vault/member/0'],
    ] as const
  ).map(
    ([route, target]): FuzzRegression => ({
      route,
      why: 'a path parameter that is not a chain address reached the store, whose key layout refused it (500); the names and vaults routes now declare it AddressString (400)',
      request: { kind: 'hostile-path', method: 'GET', target },
    }),
  ),
  // The three below were 500 only where declared answers are checked (CHAIN_VALIDATE_RESPONSES=1,
  // as the test runner sets it): the gateway answered a status its declaration did not list.
  {
    route: 'GET /api/v1/contracts/{address}/token-info',
    why: 'text that is no address went on to the node as a longer URL and its 414 came back; the gateway now declares the parameter AddressString (400)',
    request: { kind: 'hostile-path', method: 'GET', target: `/api/v1/contracts/${'%7B%22a%22%3A'.repeat(300)}/token-info` },
  },
  {
    route: 'POST /api/v1/contracts/certify',
    why: 'when no node plugin served it the node answered 405 (GET /api/v1/contracts/:address), a status the gateway did not declare; the analyzer plugin now serves it, and a bad body is a declared 400',
    request: { kind: 'valid', method: 'POST', target: '/api/v1/contracts/certify', body: '{"signer":"x"}', contentType: 'application/json' },
  },
  {
    route: 'GET /api/v1/certificates',
    why: 'when no node plugin served it the node\'s 404 was not declared; the analyzer plugin now serves it as a declared read',
    request: { kind: 'valid', method: 'GET', target: '/api/v1/certificates' },
  },
];
