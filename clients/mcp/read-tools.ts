import type { Static } from '@sinclair/typebox';
import { ToolFailure, type GatewayClient } from './gateway-client.js';
import type { McpConfig } from './config.js';
import { INPUTS } from './inputs.js';

/** What every tool runs with: the gateway and the configuration (never the seed's text). */
export interface ToolContext {
  readonly gateway: GatewayClient;
  readonly config: McpConfig;
}

export interface ToolDefinition<N extends keyof typeof INPUTS = keyof typeof INPUTS> {
  readonly name: N;
  readonly title: string;
  readonly description: string;
  readonly writes: boolean;
  run(ctx: ToolContext, args: Static<(typeof INPUTS)[N]>): Promise<unknown>;
}

const define = <N extends keyof typeof INPUTS>(d: ToolDefinition<N>): ToolDefinition<N> => d;

/** `address`, else the configured account (decisions.md §78), else a refusal naming the argument, before any request. */
function addressOr(ctx: ToolContext, address: string | undefined): string {
  const a = address ?? ctx.config.account;
  if (a === undefined) throw new ToolFailure('address: required: CHAIN_MCP_CONFIG names no account to default to');
  return a;
}

const query = (q: Record<string, string | number | undefined>): string => {
  const parts = Object.entries(q).filter((e): e is [string, string | number] => e[1] !== undefined);
  return parts.length === 0 ? '' : '?' + new URLSearchParams(parts.map(([k, v]): [string, string] => [k, String(v)])).toString();
};

const AMOUNTS = 'Amounts are integers in ucoin (1 COIN = 1 000 000 ucoin) with a *_human COIN text beside each.';

/**
 * The nine reading tools of part 1 and decisions.md §79, each one GET (one POST for the audit) to
 * the gateway; the result is the gateway's JSON answer unchanged.
 */
export const READ_TOOLS = [
  define({
    name: 'ch_get_account',
    title: 'Account',
    writes: false,
    description: `Reads an account (GET /api/v1/accounts/:address): balance and balance_human, nonce (last confirmed), next_nonce, tx_count, shard, is_contract, verified, custom_address. ${AMOUNTS}`,
    run: (ctx, a) => ctx.gateway.get(`/api/v1/accounts/${addressOr(ctx, a.address)}`),
  }),
  define({
    name: 'ch_get_txs',
    title: 'Transaction history',
    writes: false,
    description: `Lists an address's transactions, newest first (GET /api/v1/transactions?address=&limit=&offset=): each with hash, type, from, to, value, gas, fee, status (pending, confirmed, failed), error, block, timestamp; with total and has_more for paging. ${AMOUNTS}`,
    run: (ctx, a) => ctx.gateway.get(`/api/v1/transactions${query({ address: addressOr(ctx, a.address), limit: a.limit, offset: a.offset })}`),
  }),
  define({
    name: 'ch_gas_estimate',
    title: 'Fees',
    writes: false,
    description: `Current fees (GET /api/v1/gas/estimate): base_fee (ucoin per gas), gas of a transfer (21) and a contract call (50), estimated_transfer and estimated_contract fees, gas of each operation, total_burned. ${AMOUNTS}`,
    run: (ctx) => ctx.gateway.get('/api/v1/gas/estimate'),
  }),
  define({
    name: 'ch_list_proposals',
    title: 'Governance proposals',
    writes: false,
    description: 'Lists governance proposals (GET /api/v1/governance/proposals): id, title, description, kind (text or PARAM_CHANGE), payload, status (active, passed, rejected), voting window, yes and no weights (self-stake, ucoin); with total and has_more for paging. Read-only: this server cannot propose or vote.',
    run: (ctx, a) => ctx.gateway.get(`/api/v1/governance/proposals${query({ status: a.status, limit: a.limit, offset: a.offset })}`),
  }),
  define({
    name: 'ch_list_validators',
    title: 'Validators',
    writes: false,
    description: `Lists the active validators (GET /api/v1/validators): address (.node), public_key, power, stake and stake_human (self-stake, the voting power), trust_score (share of recent rounds voted, 0-1), blocks_proposed, votes_cast, last_active; with total and has_more for paging. Read-only: this server cannot stake or delegate. ${AMOUNTS}`,
    run: (ctx) => ctx.gateway.get('/api/v1/validators'),
  }),
  define({
    name: 'ch_get_contract',
    title: 'Contract',
    writes: false,
    description: 'Reads a deployed contract (GET /api/v1/contracts/:address): address, owner, code_hash, name, description, template, decimals, deploy_tx, created_height, code_size, and security_score where an analyzer scored it. 404 for an address with no contract.',
    run: (ctx, a) => ctx.gateway.get(`/api/v1/contracts/${a.address}`),
  }),
  define({
    name: 'ch_analyze_contract',
    title: 'Contract analysis',
    writes: false,
    description:
      "Asks the gateway's contract audit to analyse bytecode (POST /api/v1/contracts/audit, the node's analyzer): risk_score and security_score (0-100), safe, violations (rule, severity, message), gas_estimate. A network that runs no analyzer answers 503, reported as it is.",
    run: (ctx, a) => ctx.gateway.post('/api/v1/contracts/audit', { bytecode_hex: a.bytecode_hex }),
  }),
  define({
    name: 'ch_get_session_grants',
    title: 'Session keys',
    writes: false,
    description: `Lists the session keys an account granted (GET /api/v1/session/list/:address): each session_pk, scope (addresses it may send to, or "*"), cap and spent (ucoin: what the key may move in all, and has moved), expiry_block, status (active, revoked, expired, ended). ${AMOUNTS}`,
    run: (ctx, a) => ctx.gateway.get(`/api/v1/session/list/${addressOr(ctx, a.address)}`),
  }),
  define({
    name: 'ch_get_held',
    title: 'Held transfers',
    writes: false,
    description: `Lists transfers the sentinel's policy layer holds for an address as sender or recipient (GET /api/v1/held/:address): tx_hash, from, to, value, score, category, releases (automatic or owner_confirmation), release_height or expiry_height, status. Only the owner's main key can confirm or cancel one; this server cannot. ${AMOUNTS}`,
    run: (ctx, a) => ctx.gateway.get(`/api/v1/held/${addressOr(ctx, a.address)}`),
  }),
] as const;
