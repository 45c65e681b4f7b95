import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { Logger } from 'pino';
import { stringify } from '../codec/json.js';
import { ChainError, isChainError } from '../errors.js';
import { isHttpReply } from '../rpc/respond.js';
import type { HttpReply } from '../rpc/index.js';
import type { DeclaredRoute } from '../host/declared-route.js';
import type { RouteEntry, RpcHandler, RpcRequest } from '../host/route-table.js';
import { namesGuardedAddress } from './foreign-reads.js';

/** Set to `1` (the test runner does for integration tests) to check every declared route's answers. */
export const VALIDATE_RESPONSES_ENV = 'CHAIN_VALIDATE_RESPONSES';

export function validatingResponses(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[VALIDATE_RESPONSES_ENV] === '1';
}

/** The statuses a declared route may answer besides 200 (as the API reference lists them, openapi.ts). */
export function allowedStatuses(route: DeclaredRoute, service: 'node' | 'gateway'): Set<number> {
  const out = new Set<number>([200, 429, ...Object.keys(route.responses).map(Number)]);
  if (route.params !== undefined || route.query !== undefined || route.body !== undefined) out.add(400);
  const body = route.body as { properties?: Record<string, unknown> } | undefined;
  if (body?.properties !== undefined && 'signature' in body.properties) out.add(401);
  if (route.proves !== undefined) out.add(503);
  // Over the size limit (kernel/rpc/body.ts), as the OpenAPI document lists for a method that carries a body; the gateway relays a node's.
  if (route.method !== 'GET') out.add(413);
  // decisions.md §73: on a sharded network every node read naming an address another shard owns is 404 with `shard` (foreign-reads.ts).
  if (service === 'node' && route.method === 'GET' && namesGuardedAddress(route.path)) out.add(404);
  if (service === 'gateway') for (const s of [502, 503]) out.add(s);
  return out;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerOf(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  return c;
}

/**
 * What is wrong with a declared route's answer, or undefined: a status it does not declare, or a
 * 200 JSON body (as a client parses it: bigints as integers) its schema refuses.
 */
export function responseMismatch(route: DeclaredRoute, service: 'node' | 'gateway', status: number, body: unknown, contentType: string | undefined): string | undefined {
  if (!allowedStatuses(route, service).has(status)) return `answered status ${status}, which the route does not declare (declared: ${[...allowedStatuses(route, service)].sort().join(', ')})`;
  if (status !== 200 || route.produces !== undefined) return undefined;
  if (contentType !== undefined && !/^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) return `answered ${contentType}, but the route declares JSON`;
  const wire: unknown = body === undefined ? undefined : JSON.parse(stringify(body));
  const check = checkerOf(route.responses[200]);
  if (check.Check(wire)) return undefined;
  const first = check.Errors(wire).First();
  return `200 body${first?.path ? ` at ${first.path}` : ''}: ${first?.message ?? 'refused'} (got ${JSON.stringify(first?.value)?.slice(0, 120)})`;
}

/**
 * A declared route's handler whose answers are checked against its declaration (CHAIN_VALIDATE_RESPONSES=1):
 * a mismatch answers 500 naming it and logs it, so an integration test that reaches the route fails.
 */
export function checkingResponses(entry: RouteEntry, handler: RpcHandler, service: 'node' | 'gateway', log: Pick<Logger, 'error'>): RpcHandler {
  const route = entry.declared;
  if (route === undefined) return handler;
  const where = `${entry.method} ${entry.path}`;
  const fail = (mismatch: string): ChainError => {
    log.error({ route: where, owner: entry.owner, mismatch }, 'answer does not match the route declaration');
    return new ChainError(500, `response of ${where} does not match its declaration: ${mismatch}`, 'fix the route declaration (or the answer, where it differs from the spec)');
  };
  return async (req: RpcRequest) => {
    let result: unknown;
    try {
      result = await handler(req);
    } catch (e) {
      if (isChainError(e) && e.status !== 500) {
        const mismatch = responseMismatch(route, service, e.status, undefined, undefined);
        if (mismatch !== undefined) throw fail(`${mismatch}: ${e.message}`);
      }
      throw e;
    }
    const r = isHttpReply(result) ? (result as HttpReply & { body: unknown; contentType?: string; stream?: unknown }) : undefined;
    if (r?.stream !== undefined) return result;
    const status = r ? r.status : result === undefined ? 204 : 200;
    const mismatch = responseMismatch(route, service, status, r ? r.body : result, r?.contentType);
    if (mismatch !== undefined) throw fail(mismatch);
    return result;
  };
}
