import { gatewayApiInfo, openApiDocument, registerApiReference, servedRoutes, type Hooks, type HttpServer, type RouteTable } from '../../kernel/sdk.js';
import type { GatewayServices } from './services.js';

/** The params of the socket RPC methods the gateway core answers (rpc-methods.ts, contract-routes.ts, security-methods.ts). */
const CORE_METHOD_PARAMS: Readonly<Record<string, readonly string[]>> = {
  get_status: [],
  get_blocks: ['limit', 'offset', 'page'],
  get_block: ['height'],
  get_block_txs: ['height', 'limit', 'offset', 'page'],
  get_txs: ['address', 'hash', 'type', 'limit', 'offset', 'page'],
  search_tx: ['hash'],
  get_account: ['address'],
  get_governance_params: [],
  get_proposals: ['status', 'limit', 'offset', 'page'],
  get_proposal: ['id'],
  get_validators: ['limit', 'offset', 'page'],
  get_validator: ['address'],
  faucet: ['address', 'public_key', 'amount'],
  get_oracle_log: ['model', 'kind', 'subject', 'limit', 'offset', 'page'],
  get_oracle_entry: ['id'],
  get_model_registry: ['limit', 'offset', 'page'],
  get_model_registry_entry: ['id'],
  get_contracts: ['owner', 'limit', 'offset', 'page'],
  get_contract: ['address'],
  get_contract_events: ['address', 'owner', 'limit', 'offset', 'page'],
  call_contract: ['address', 'method', 'args', 'from', 'gas_limit'],
  // The deploy operation's body, or a plain deploy transaction's (contract-routes.ts).
  deploy_contract: ['owner', 'bytecode_hex', 'base64_wasm', 'template', 'name', 'description', 'init_args', 'from', 'to', 'value', 'nonce', 'data', 'gas_price', 'gas_limit', 'signature', 'public_key'],
  // security-methods.ts (decisions.md §50); certify_contract and update_contract_score here only while no operation declares them.
  get_certificates: ['owner', 'contract', 'issuer', 'limit', 'offset', 'page'],
  get_certificate: ['id'],
  get_contract_certificate: ['address'],
  certify_contract: ['signer', 'contract', 'note', 'signature', 'public_key', 'nonce', 'gas_price', 'gas_limit'],
  update_contract_score: ['address', 'signer', 'security_score', 'signature', 'public_key', 'nonce', 'gas_price', 'gas_limit'],
};

/** The client messages of `/ws` besides `rpc` (socket.ts). */
const CLIENT_MESSAGES = [
  { type: 'subscribe_balance', fields: ['address'] },
  { type: 'unsubscribe_balance', fields: ['address'] },
  { type: 'rpc', fields: ['id', 'method', 'params'] },
  { type: 'ping', fields: [] },
];

/** The socket RPC methods tapped now, by name (tapable's HookMap keeps them in `_map`). */
function methodNames(hooks: Hooks): string[] {
  const map = (hooks.rpcMethods as unknown as { _map: Map<string, { taps: readonly unknown[] }> })._map;
  return [...map.entries()].filter(([, h]) => h.taps.length > 0).map(([name]) => name).sort();
}

/** decisions.md §87: the gateway's `x-websocket`: the `/ws` path, its events and its methods. */
export function websocketDescription(s: GatewayServices, hooks: Hooks): Record<string, unknown> {
  const opParams = new Map(s.operations.filter((o) => o.socketMethod !== undefined).map((o) => [o.socketMethod!, [...Object.keys(o.spec.schema.properties), 'signature', 'public_key', 'nonce', 'gas_price', 'gas_limit']]));
  return {
    path: '/ws',
    events: [...s.events.list()].sort((a, b) => (a.type < b.type ? -1 : 1)).map((e) => ({ type: e.type, description: e.description, fields: [...e.fields] })),
    methods: methodNames(hooks).map((name) => ({ name, params: [...(CORE_METHOD_PARAMS[name] ?? opParams.get(name) ?? [])] })),
    messages: CLIENT_MESSAGES,
  };
}

/** Serves the gateway's `/api/v1/openapi.json` and `/docs` (the routes it serves once listening). */
export function registerGatewayApiReference(routes: RouteTable, s: GatewayServices, hooks: Hooks, server: () => HttpServer | undefined): void {
  registerApiReference(routes, () => {
    const listening = server();
    return openApiDocument({ ...gatewayApiInfo(s.config.networkId), routes: listening ? servedRoutes(listening) : [], extensions: { 'x-websocket': websocketDescription(s, hooks) } });
  });
}
