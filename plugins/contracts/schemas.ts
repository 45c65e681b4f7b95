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

/** `POST /api/v1/contracts/:address/call` and the socket method `call_contract` (part 1, Contracts). */
export const CallBody = Type.Object(
  {
    function: Type.Optional(Type.String({ minLength: 1 })),
    method: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    dry_run: Type.Optional(Type.Boolean()),
    gas_limit: Type.Optional(Type.Integer({ minimum: 1 })),
    caller: Type.Optional(Type.String()),
    address: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type CallRequest = Static<typeof CallBody>;

/** The call body, or a 400 naming the first field that is wrong. */
export function parseCall(body: unknown): CallRequest & { fn: string } {
  if (!Value.Check(CallBody, body)) {
    const first = Value.Errors(CallBody, body).First();
    throw badRequest(`contract call: ${first ? `${first.path.replace(/^\//, '') || 'body'} ${first.message}` : 'invalid body'}`, 'send {"function", "args", "dry_run": true}');
  }
  const fn = body.function ?? body.method;
  if (fn === undefined) throw badRequest('contract call: function is required');
  return { ...body, fn };
}
