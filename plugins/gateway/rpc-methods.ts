import { badRequest, notFound, type Hooks } from '../../kernel/sdk.js';
import { resultOf } from './node-client.js';
import type { GatewayServices } from './services.js';
import { pathSegment } from './upstream-path.js';
import { fetchValidators } from './validators.js';

const CALLER_IP = Symbol.for('chain.gateway.callerIp');

/** Socket RPC params with the caller's IP attached out of band (a symbol key clients cannot send). */
export function withCaller(params: Record<string, unknown>, ip: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...params };
  Object.defineProperty(copy, CALLER_IP, { value: ip, enumerable: false });
  return copy;
}

/** The IP of the socket client calling a method (for per-IP limits such as the faucet cooldown). */
export function callerIp(params: Record<string, unknown>): string {
  const ip = (params as Record<symbol, unknown>)[CALLER_IP];
  return typeof ip === 'string' ? ip : 'unknown';
}

/** A path segment from a param, checked and encoded as the REST proxy does its path parameters. */
function seg(name: string, v: unknown): string {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v !== 'string' || v.length === 0) throw badRequest(`params.${name} is required`);
  return pathSegment(`params.${name}`, v);
}

function query(params: Record<string, unknown>, keys: readonly string[]): string {
  const q = new URLSearchParams();
  for (const k of keys) {
    const v = params[k];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The socket RPC methods the gateway itself answers (part 1, "Socket RPC methods", the read
 * groups and `faucet`). Each is a tap on the `rpcMethods` hook under the method's name, exactly
 * as another service plugin adds one; reads go through the same cache as REST, so a method and
 * its REST twin return the same data.
 */
export function registerCoreRpcMethods(hooks: Hooks, plugin: string, s: GatewayServices, status: () => Promise<Record<string, unknown>>): void {
  const method = (name: string, fn: (params: Record<string, unknown>) => Promise<unknown>): void => {
    hooks.rpcMethods.for(name).tapPromise(plugin, fn);
  };
  const read = async (path: string): Promise<unknown> => resultOf(await s.reads.get(path));

  method('get_status', () => status());
  method('get_blocks', (p) => read(`/api/v1/blocks${query(p, ['limit', 'offset', 'page'])}`));
  method('get_block', (p) => read(`/api/v1/blocks/${seg('height', p.height)}`));
  method('get_block_txs', (p) => read(`/api/v1/blocks/${seg('height', p.height)}/transactions${query(p, ['limit', 'offset', 'page'])}`));
  method('get_txs', (p) => read(`/api/v1/transactions${query(p, ['address', 'hash', 'type', 'limit', 'offset', 'page'])}`));
  method('search_tx', (p) => read(`/api/v1/transactions/${seg('hash', p.hash)}`));
  method('get_account', (p) => read(`/api/v1/accounts/${seg('address', p.address)}`));
  method('get_governance_params', () => read('/api/v1/governance/params'));
  method('get_proposals', (p) => read(`/api/v1/governance/proposals${query(p, ['status', 'limit', 'offset', 'page'])}`));
  method('get_proposal', (p) => read(`/api/v1/governance/${seg('id', p.id)}`));
  // Names and NFTs, vaults (decisions.md §45; plugins/names, plugins/vaults). The price route is
  // Node only at REST; its socket method reads it from a node.
  method('human_name_price', (p) => read(`/api/v1/addresses/human/price${query(p, ['name'])}`));
  method('get_nft', (p) => read(`/api/v1/nft/${seg('address', p.address)}`));
  method('get_my_nfts', (p) => read(`/api/v1/nft/owner/${seg('address', p.address)}${query(p, ['limit', 'offset', 'page'])}`));
  method('get_vault_config', (p) => read(`/api/v1/vault/${seg('vault', p.vault)}/config`));
  method('list_member_vaults', (p) => read(`/api/v1/vault/member/${seg('address', p.address)}${query(p, ['limit', 'offset', 'page'])}`));
  method('get_vault_proposals', (p) => read(`/api/v1/vault/${seg('vault', p.vault)}/proposals${query(p, ['status', 'limit', 'offset', 'page'])}`));
  method('get_validators', (p) => read(`/api/v1/validators${query(p, ['limit', 'offset', 'page'])}`));
  method('get_validator', async (p) => {
    const address = seg('address', p.address);
    const found = (await fetchValidators(s.reads)).validators.find((v) => v.address === address);
    if (!found) throw notFound(`validator ${address} is not in the active set`);
    return found;
  });
  method('faucet', async (p) => resultOf(await s.submissions.faucet(stripCaller(p), callerIp(p))));
  // AI (plugins/ai-records); register_model is an operation, forwarded with the others.
  method('get_oracle_log', (p) => read(`/api/v1/oracle/log${query(p, ['model', 'kind', 'subject', 'limit', 'offset', 'page'])}`));
  method('get_oracle_entry', (p) => read(`/api/v1/oracle/log/${seg('id', p.id)}`));
  method('get_model_registry', (p) => read(`/api/v1/models/registry${query(p, ['limit', 'offset', 'page'])}`));
  method('get_model_registry_entry', (p) => read(`/api/v1/models/registry/${seg('id', p.id)}`));
}

/** The body forwarded to the node: the client's params without the out-of-band caller. */
function stripCaller(p: Record<string, unknown>): Record<string, unknown> {
  return { ...p };
}
