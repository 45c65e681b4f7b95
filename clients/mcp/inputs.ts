import { Type, type TInteger, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { AccountParams, CAP_KEYWORD, TransactionBody, TransactionListQuery } from '../../kernel/sdk.js';
import { ProposalListQuery } from '../../plugins/governance/public.js';
import { CallBody, ContractParams, DeployBody } from '../../plugins/contracts/public.js';
import { SessionListParams } from '../../plugins/session/public.js';
import { HeldListParams } from '../../plugins/sentinel/public.js';
import { AuditBody } from '../../plugins/gateway/schemas.js';
import { AmountNro } from './amount.js';

/**
 * Every tool's input schema, built from the TypeBox constants the REST routes check the same
 * fields with (decisions.md §79): the route's own schema object, re-described for a model and made
 * optional or given the tool's default where the tool differs. No parameter with a REST twin has
 * a schema of its own here; the one without (`amount_nro`, in COIN) is in amount.ts.
 */

/** The same schema (bounds, pattern, refusal message), described for a model. */
function described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

/** A route's capped `limit` as a tool argument: the cap is a hard `maximum` (201 is refused, not capped), with the tool's default. */
function hardLimit(routeLimit: TInteger, toolDefault: number, description: string): TInteger {
  const { [CAP_KEYWORD]: cap, ...rest } = routeLimit as TInteger & Record<string, unknown>;
  if (typeof cap !== 'number') throw new Error(`the route's limit has no ${CAP_KEYWORD}`);
  return { ...rest, maximum: cap, default: toolDefault, description } as TInteger;
}

const tool = <P extends TProperties>(properties: P): TObject<P> => Type.Object(properties, { additionalProperties: false });

const ADDRESS_DEFAULT = 'default: the account in CHAIN_MCP_CONFIG';

export const INPUTS = {
  ch_get_account: tool({
    address: Type.Optional(described(AccountParams.properties.address, `the account to read (chain:<15 hex>.human, or any address kind); ${ADDRESS_DEFAULT}`)),
  }),
  ch_get_txs: tool({
    address: Type.Optional(described(TransactionListQuery.properties.address, `whose transactions to list (sent or received); ${ADDRESS_DEFAULT}`)),
    limit: Type.Optional(hardLimit(Type.Required(TransactionListQuery).properties.limit, 20, 'how many transactions, newest first: 1 to 200 (default 20)')),
    offset: Type.Optional({ ...described(Type.Required(TransactionListQuery).properties.offset, 'how many of the newest to skip (default 0), for the next page'), default: 0 }),
  }),
  ch_gas_estimate: tool({}),
  ch_list_proposals: tool({
    status: Type.Optional(described(ProposalListQuery.properties.status, 'only proposals in this state: active (voting open), passed or rejected; default all')),
    limit: Type.Optional(hardLimit(Type.Required(ProposalListQuery).properties.limit, 20, 'how many proposals: 1 to 100 (default 20)')),
    offset: Type.Optional({ ...described(Type.Required(ProposalListQuery).properties.offset, 'how many to skip (default 0), for the next page'), default: 0 }),
  }),
  ch_list_validators: tool({}),
  ch_get_contract: tool({
    address: described(ContractParams.properties.address, 'the contract, chain:<10 hex>.app (required)'),
  }),
  ch_analyze_contract: tool({
    bytecode_hex: described(AuditBody.properties.bytecode_hex, 'the WebAssembly bytecode to analyse, as hex (an even number of hex digits, 0x allowed); source code is not accepted'),
  }),
  ch_get_session_grants: tool({
    address: Type.Optional(described(SessionListParams.properties.account, `the account whose session-key grants to list; ${ADDRESS_DEFAULT}`)),
  }),
  ch_get_held: tool({
    address: Type.Optional(described(HeldListParams.properties.address, `the address whose held transfers to list (as sender or recipient); ${ADDRESS_DEFAULT}`)),
  }),
  ch_transfer: tool({
    to: described(TransactionBody.properties.to, 'the recipient address (an account chain:<15 hex>.human, a name, a .node); it must be in the session grant\'s scope'),
    amount_nro: AmountNro,
  }),
  ch_call_contract: tool({
    to: described(ContractParams.properties.address, 'the contract to call, chain:<10 hex>.app'),
    function: described(Type.Required(CallBody).properties.function, 'the contract function to run, e.g. transfer, approve, mint (a token contract\'s names: part 1, Contract execution 10)'),
    args: Type.Optional(described(CallBody.properties.args, 'the function\'s arguments as a JSON object (default {}), e.g. {"to": "chain:…human", "amount": "2.5"}; a token\'s `amount` is in whole tokens, converted by the node with the contract\'s decimals')),
    value: Type.Optional({ ...described(TransactionBody.properties.value, 'ucoin to attach to the call (default 0; 1 COIN = 1 000 000 ucoin): credited to the contract if the call succeeds, counted against the session cap'), default: 0 }),
  }),
  ch_deploy: tool({
    bytecode_hex: Type.Optional(described(Type.Required(DeployBody).properties.bytecode_hex, 'the contract\'s WebAssembly bytecode as hex; give it or `template`')),
    template: Type.Optional(described(Type.Required(DeployBody).properties.template, 'the id of a template (GET /api/v1/templates, e.g. fungible-token) whose bytecode to deploy; give it or `bytecode_hex`')),
    name: Type.Optional(described(Type.Required(DeployBody).properties.name, 'the contract\'s name (at most 64 characters)')),
    description: Type.Optional(described(Type.Required(DeployBody).properties.description, 'what the contract is for (at most 1 000 characters)')),
    init_args: Type.Optional(described(Type.Required(DeployBody).properties.init_args, 'arguments of the contract\'s initialize call, as a JSON object; a token takes {"name", "symbol", "decimals" (a JSON number), "total_supply" (whole tokens)}')),
  }),
} as const;

export type ToolName = keyof typeof INPUTS;
