import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ADDRESS_MAX_LENGTH, badRequest, HexBytes, withRefusal } from '../../kernel/sdk.js';

/** A contract's address (part 1, "Address kinds": `chain:<10 hex>.app`; `isAddress`'s `.app` form). */
export const ContractAddressString = withRefusal(
  Type.String({ pattern: '^chain:[a-z0-9][a-z0-9_-]{0,62}\\.app$', maxLength: ADDRESS_MAX_LENGTH, description: 'a contract address: chain:<10 hex>.app' }),
  (v) => `"${String(v)}" is not a contract address (chain:<10 hex>.app)`,
);

/** GET `/api/v1/contracts/:address` and the other routes of one contract (`/events`, `/call`). */
export const ContractParams = Type.Object({ address: ContractAddressString });

/** `POST /api/v1/contracts/deploy` (the `deploy_contract` operation); the kernel owns the signed fields and `gas_limit`. */
export const DeployBody = Type.Object(
  {
    owner: Type.String(),
    bytecode_hex: Type.Optional({ ...HexBytes, description: 'the WebAssembly bytecode as hex' }),
    base64_wasm: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    template: Type.Optional(Type.String()),
    init_args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

/**
 * `POST /api/v1/contracts/:address/call` and the socket method `call_contract` (part 1, Contracts).
 * Any other field is an argument flattened at the top level (part 1, Contract execution 3).
 */
export const CallBody = Type.Object(
  {
    function: Type.Optional(Type.String({ minLength: 1 })),
    method: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    dry_run: Type.Optional(Type.Boolean()),
    gas_limit: Type.Optional(Type.Integer({ minimum: 1 })),
    caller: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export type CallRequest = Static<typeof CallBody>;

/** Fields of the call body that are about the request, not arguments of the contract. */
const REQUEST_FIELDS: ReadonlySet<string> = new Set(['dry_run', 'gas_limit', 'caller']);

/** The call body, or a 400 naming the first field that is wrong; `data` is the call as a transaction's data would carry it. */
export function parseCall(body: unknown): CallRequest & { fn: string; data: string } {
  if (!Value.Check(CallBody, body)) {
    const first = Value.Errors(CallBody, body).First();
    throw badRequest(`contract call: ${first ? `${first.path.replace(/^\//, '') || 'body'} ${first.message}` : 'invalid body'}`, 'send {"function", "args", "dry_run": true}');
  }
  const fn = body.function ?? body.method;
  if (fn === undefined) throw badRequest('contract call: function is required');
  const call: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!REQUEST_FIELDS.has(k)) call[k] = v;
  return { ...body, fn, data: JSON.stringify(call) };
}

/** The plugin's options in a network config (`plugins[].options`): the contract threads outside consensus. */
export const ContractsOptionsSchema = Type.Object(
  {
    /** Threads that run dry runs and check deploys at admission (each one request at a time). */
    offchain_threads: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
    /** Requests that may wait for such a thread; beyond, 503. */
    offchain_queue: Type.Integer({ minimum: 0, maximum: 1024, default: 8 }),
    /** A request that runs longer is stopped, 503. */
    offchain_timeout_ms: Type.Integer({ minimum: 100, maximum: 60_000, default: 3_000 }),
  },
  { additionalProperties: false },
);
export type ContractsOptions = Static<typeof ContractsOptionsSchema>;

/** A contract as the routes answer it (no security_score: no analyzer runs, and a stand-in score would be a lie, issue 24). */
export const ContractView = Type.Object({
  app_name: Type.String({ description: 'its .app name (chain:<name>.app, decisions.md §42), "" when none' }),
  address: Type.String(),
  owner: Type.String(),
  code_hash: Type.String({ description: 'SHA3-256 of the bytecode, 0x-prefixed' }),
  name: Type.String(),
  description: Type.String(),
  template: Type.Union([Type.String(), Type.Null()], { description: 'the template the deploy named, if any' }),
  decimals: Type.Integer({ minimum: 0, description: 'from init_args.decimals: converts args.amount of calls' }),
  deploy_tx: Type.String(),
  created_height: Type.Integer({ minimum: 0 }),
  code_size: Type.Integer({ minimum: 0, description: 'bytes' }),
  security_score: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], { description: "decisions.md §47: from the analyzer's deploy gate (100 when trusted), or the operators' score; null on a contract deployed before any gate ran" }),
  risk_score: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], { description: 'as analysed at deploy' }),
  model: Type.Union([Type.String(), Type.Null()], { description: 'the analyzer that scored it (static-v1)' }),
  score_source: Type.Union([Type.Literal('analyzer'), Type.Literal('whitelist'), Type.Literal('operators'), Type.Null()]),
});

const EventData = Type.Unknown({ description: "the event's JSON when it is integers-only and at most 32 deep, else its text" });

export const ContractEventView = Type.Object({ height: Type.Integer({ minimum: 0 }), tx_hash: Type.String(), contract: Type.String(), event: Type.String(), data: EventData });

export const TokenTransferView = Type.Object({
  height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
  contract: Type.String(),
  from: Type.Unknown({ description: 'as the Transfer event gave it (null for a mint)' }),
  to: Type.Unknown({ description: 'as the Transfer event gave it (null for a burn)' }),
  amount: Type.Unknown({ description: 'as the Transfer event gave it' }),
});

/** The answer of a dry run (part 1, Contract execution 11): a trap is `success: false` with its `error`, not an HTTP error. */
export const DryRunAnswer = Type.Object({
  success: Type.Boolean(),
  dry_run: Type.Literal(true),
  contract: Type.String(),
  height: Type.Integer({ minimum: 0, description: 'the committed height it ran on' }),
  gas_used: Type.Integer({ minimum: 0 }),
  return_data: Type.String(),
  events: Type.Array(Type.Object({ contract: Type.String(), event: Type.String(), data: EventData })),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const TemplateView = Type.Object({
  id: Type.String({ description: 'fungible-token for a shipped one, tpl-<16 hex> for a registered one' }),
  name: Type.String(),
  description: Type.String(),
  category: Type.String(),
  author: Type.String({ description: 'the registering .node; chain:system.templates for a shipped one' }),
  bytecode_hash: Type.String(),
  bytecode_hex: Type.String(),
  abi: Type.Unknown({ description: 'functions, their arguments and events (part 1, Contract execution 10): abi_json parsed' }),
  fee_unro: Type.Integer({ minimum: 0, description: "ucoin each deploy naming it pays the author's owner" }),
  fee_unro_human: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('deprecated')]),
  builtin: Type.Boolean(),
  created_height: Type.Integer({ minimum: 0, description: '0 for a shipped one' }),
  tx_hash: Type.Union([Type.String(), Type.Null()], { description: 'the registration; null for a shipped one' }),
  uses: Type.Integer({ minimum: 0, description: 'deploys that named it' }),
  earned: Type.Integer({ minimum: 0, description: 'template fees paid to its author, ucoin' }),
  earned_human: Type.String(),
});
