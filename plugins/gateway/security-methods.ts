import { badRequest, type Hooks } from '../../kernel/sdk.js';
import { resultOf } from './node-client.js';
import type { GatewayServices } from './services.js';
import { upstreamPath } from './upstream-path.js';

/** A socket param that names a path segment (an id may come as a JSON number). */
function param(p: Record<string, unknown>, name: string): string {
  const v = p[name];
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== 'string' || v.length === 0) throw badRequest(`params.${name} is required`);
  return v;
}

function query(p: Record<string, unknown>, keys: readonly string[]): string {
  const q = new URLSearchParams();
  for (const k of keys) if (typeof p[k] === 'string' || typeof p[k] === 'number') q.set(k, String(p[k]));
  const t = q.toString();
  return t ? `?${t}` : '';
}

/**
 * The contract-security socket methods of part 1 (Contracts) and decisions.md §50: the
 * certificate reads, through the same cache as their REST twins so both answer the same data;
 * and `certify_contract` / `update_contract_score` forwarded to a node as the REST bodies (with
 * S) where no operation of the build declares them as its socket method (operation-routes.ts
 * serves those that do, and announces them as `tx`).
 */
export function registerSecurityMethods(hooks: Hooks, plugin: string, s: GatewayServices): void {
  const method = (name: string, fn: (p: Record<string, unknown>) => Promise<unknown>): void => void hooks.rpcMethods.for(name).tapPromise(plugin, fn);
  const read = async (path: string): Promise<unknown> => resultOf(await s.reads.get(path));
  method('get_certificates', (p) => read(`/api/v1/certificates${query(p, ['owner', 'contract', 'issuer', 'limit', 'offset', 'page'])}`));
  method('get_certificate', (p) => read(upstreamPath('/api/v1/certificates/:id', { id: param(p, 'id') })));
  method('get_contract_certificate', (p) => read(upstreamPath('/api/v1/certificates/contract/:address', { address: param(p, 'address') })));

  const declared = new Set(s.operations.map((op) => op.socketMethod).filter((m) => m !== undefined));
  const forward = async (method: 'POST' | 'PATCH', path: string, body: unknown): Promise<unknown> => resultOf(await s.client.request(s.router.nodesOfShard(0), method, path, body));
  if (!declared.has('certify_contract')) method('certify_contract', (p) => forward('POST', '/api/v1/contracts/certify', p));
  if (!declared.has('update_contract_score')) {
    method('update_contract_score', (p) => {
      const { address, ...body } = p;
      return forward('PATCH', upstreamPath('/api/v1/contracts/:address/score', { address: param({ address }, 'address') }), body);
    });
  }
}
