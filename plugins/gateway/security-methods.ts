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
 * The certificate reads among part 1's contract socket methods (decisions.md §50), through the
 * same cache as their REST twins so both answer the same data. `certify_contract` and
 * `update_contract_score` are the analyzer's operations' socket methods (operation-routes.ts).
 */
export function registerSecurityMethods(hooks: Hooks, plugin: string, s: GatewayServices): void {
  const method = (name: string, fn: (p: Record<string, unknown>) => Promise<unknown>): void => void hooks.rpcMethods.for(name).tapPromise(plugin, fn);
  const read = async (path: string): Promise<unknown> => resultOf(await s.reads.get(path));
  method('get_certificates', (p) => read(`/api/v1/certificates${query(p, ['owner', 'contract', 'issuer', 'limit', 'offset', 'page'])}`));
  method('get_certificate', (p) => read(upstreamPath('/api/v1/certificates/:id', { id: param(p, 'id') })));
  method('get_contract_certificate', (p) => read(upstreamPath('/api/v1/certificates/contract/:address', { address: param(p, 'address') })));

}
