import { badRequest, type Hooks, type RouteTable } from '../../kernel/sdk.js';
import { isObject, resultOf } from './node-client.js';
import { GATEWAY_ROUTES } from './declarations.js';
import type { GatewayServices } from './services.js';
import { DEPLOY_TARGET } from './submissions.js';
import { forwardOperationNamed } from './operation-routes.js';

/** decisions.md §17: the deploy operation's type (its REST route is Node only). */
const DEPLOY_OPERATION = 'deploy';
import { pathSegment, upstreamPath } from './upstream-path.js';


/** The dry-run call (the contracts plugin's; forwarded under its declaration by proxy-routes.ts), used here for token reads. */
const CONTRACT_CALL_PATH = '/api/v1/contracts/:address/call';

/** A dry run forwarded to a node of the contract's shard (decisions.md §73: a contract lives on the shard that owns its address). */
async function dryRun(s: GatewayServices, address: string, body: unknown): Promise<unknown> {
  return resultOf(await s.client.request(s.router.nodesFor(address), 'POST', upstreamPath(CONTRACT_CALL_PATH, { address }), body));
}

/** The `ok` value of a token read by dry run, or null when the contract does not answer it. */
async function tokenRead(s: GatewayServices, address: string, fn: string): Promise<unknown> {
  const r = await dryRun(s, address, { function: fn, args: {}, dry_run: true });
  if (!isObject(r) || r.success !== true || typeof r.return_data !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(r.return_data);
    return isObject(parsed) && 'ok' in parsed ? parsed.ok : null;
  } catch {
    return null;
  }
}

/**
 * Gateway-only `GET /api/v1/contracts/:address/token-info` (part 1, Contracts): name, symbol,
 * decimals and supply, read from the contract by dry runs on a node. The contract socket methods
 * are registered below (registerContractMethods).
 */
export function registerContractRoutes(routes: RouteTable, s: GatewayServices): void {
  routes.serve(GATEWAY_ROUTES.tokenInfo, async (req) => tokenInfo(s, req.params.address));
}

async function tokenInfo(s: GatewayServices, raw: string): Promise<Record<string, unknown>> {
  const address = pathSegment('path parameter \'address\'', raw);
  resultOf(await s.reads.get(upstreamPath('/api/v1/contracts/:address', { address }))); // 404 for no contract
  const [name, symbol, decimals, supply] = await Promise.all(['name', 'symbol', 'decimals', 'total_supply'].map((fn) => tokenRead(s, address, fn)));
  // What a token answers (declarations.ts, TokenInfo); anything else is a contract that does not answer it as a token does.
  const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const whole = (v: unknown): bigint | null => (typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v)) ? BigInt(v) : typeof v === 'string' && /^[0-9]+$/.test(v) ? BigInt(v) : null);
  const d = whole(decimals);
  const total = whole(supply);
  return { address, name: text(name), symbol: text(symbol), decimals: d !== null && d >= 0n && d <= 255n ? Number(d) : null, total_supply: total === null || total < 0n ? null : total.toString() };
}

export function registerContractMethods(hooks: Hooks, plugin: string, s: GatewayServices): void {
  const method = (name: string, fn: (p: Record<string, unknown>) => Promise<unknown>): void => void hooks.rpcMethods.for(name).tapPromise(plugin, fn);
  const address = (p: Record<string, unknown>): string => {
    if (typeof p.address !== 'string' || p.address.length === 0) throw badRequest('params.address is required');
    return p.address;
  };
  const query = (p: Record<string, unknown>): string => {
    const q = new URLSearchParams();
    for (const k of ['owner', 'limit', 'offset', 'page']) if (typeof p[k] === 'string' || typeof p[k] === 'number') q.set(k, String(p[k]));
    const t = q.toString();
    return t ? `?${t}` : '';
  };
  method('get_contracts', async (p) => resultOf(await s.reads.get(`/api/v1/contracts${query(p)}`)));
  method('get_contract', async (p) => resultOf(await s.reads.get(upstreamPath('/api/v1/contracts/:address', { address: address(p) }))));
  method('get_contract_events', async (p) => resultOf(await s.reads.get(`${upstreamPath('/api/v1/contracts/:address/events', { address: address(p) })}${query(p)}`)));
  method('call_contract', async (p) => {
    const { address: a, ...body } = p;
    return dryRun(s, address({ address: a }), body);
  });
  // Part 1 lists `deploy_contract` among the socket methods, which "mirror REST": its params are
  // the deploy operation's body (POST /api/v1/contracts/deploy: `owner`, `bytecode_hex` or a
  // `template`, S), forwarded to a node although that route is Node only at the gateway, and
  // answered with §17's object. Part 1's other deploy, a plain transaction to chain:system.deploy
  // (Contract execution 9), is taken too when the params are that transaction's body (`from`,
  // `value`, `nonce`, `data` with the deploy fields, S; `to` chain:system.deploy or left out): it is
  // forwarded and announced (`tx`) as POST /api/v1/transactions is, and answers the submission answer.
  method('deploy_contract', async (p) => {
    if (p.from === undefined && p.to === undefined) return resultOf(await forwardOperationNamed(s, DEPLOY_OPERATION, p));
    const body: Record<string, unknown> = { ...p };
    if (body.to === undefined) body.to = DEPLOY_TARGET;
    else if (body.to !== DEPLOY_TARGET) throw badRequest(`deploy_contract submits a deploy transaction: params.to must be ${DEPLOY_TARGET} or left out, got ${JSON.stringify(body.to)}`);
    return resultOf(await s.submissions.transaction(body));
  });
}
