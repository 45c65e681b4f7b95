import { appNameOf, contractAddressOf } from './app-names.js';
import { appRecordStateKey } from '../names/public.js';
import { Type, type TSchema } from '@sinclair/typebox';
import { badRequest, countedPage, defineRoute, forbidden, isAddress, listPage, notFound, pageAnswer, pageQuery, toPage, type IndexReader, type NodeServices, type QueryContext, type RouteTable } from '../../kernel/sdk.js';
import { dryRun } from './execute.js';
import { allContracts, code, contractEvents, contracts, readContract, tokenTransfers, type ContractRecord } from './store.js';
import { templateList, templateOne } from './template-registry.js';
import { TEMPLATE_ID, templateUsage, templates } from './template-store.js';
import { CallBody, ContractEventView, ContractParams, ContractView, DryRunAnswer, parseCall, TemplateView, TokenTransferView } from './schemas.js';
import { duplicateJsonKey } from './json-keys.js';
import type { ContractRuntime } from './runtime.js';

/** A list of the index, newest first: `total` is a lower bound when `total_exact` is false (more entries follow). */
const indexPageAnswer = (head: Record<string, TSchema>, key: string, item: TSchema) =>
  Type.Object({
    ...head,
    [key]: Type.Array(item),
    total: Type.Integer({ minimum: 0, description: 'entries counted; a lower bound when total_exact is false' }),
    total_exact: Type.Optional(Type.Literal(false, { description: 'present (false) when more entries follow than were walked' })),
    limit: Type.Integer({ minimum: 1 }),
    offset: Type.Integer({ minimum: 0 }),
    has_more: Type.Boolean(),
  });

export const contractsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/contracts',
  summary: 'the deployed contracts, newest first',
  query: pageQuery({ default: 20, cap: 100 }, { owner: Type.Optional(Type.String({ description: 'only the contracts this address deployed' })) }),
  responses: { 200: pageAnswer('contracts', ContractView) },
});

export const contractRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/contracts/:address',
  summary: 'a contract',
  params: ContractParams,
  responses: { 200: ContractView, 404: 'no contract at the address' },
  // decisions.md §84: proven by its record; an `.app` name (§42) also by the name's record, which
  // binds the name to the contract the answer is (plugins/names/store.ts `apps`).
  proves: (req, answer) => {
    const contract = String(answer.address);
    return contract === req.params.address ? [contracts.stateKey(contract)] : [appRecordStateKey(req.params.address), contracts.stateKey(contract)];
  },
});

export const contractEventsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/contracts/:address/events',
  summary: "a contract's events, newest first, from this node's index (an addition to part 1)",
  params: ContractParams,
  query: pageQuery({ default: 50, cap: 200 }),
  responses: { 200: indexPageAnswer({ contract: Type.String() }, 'events', ContractEventView) },
});

export const tokenTransfersRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/accounts/:address/token-transfers',
  summary: "the contract Transfer events an address is a party of, newest first, from this node's index",
  params: Type.Object({ address: Type.String({ minLength: 1, description: 'a chain address' }) }),
  query: pageQuery({ default: 50, cap: 200 }),
  responses: { 200: indexPageAnswer({ address: Type.String() }, 'transfers', TokenTransferView), 400: 'the path parameter is not a chain address' },
});

export const callRoute = defineRoute({
  method: 'POST',
  path: '/api/v1/contracts/:address/call',
  summary: 'a dry run of a contract call on committed state: no transaction, no fee, nothing written (part 1, Contract execution 11)',
  params: ContractParams,
  body: CallBody,
  // Checked in the handler, in the words it always answered (`contract call: …`), and for duplicate names in the raw text.
  bodyCheck: 'handler',
  responses: {
    200: DryRunAnswer,
    403: 'dry_run: false: a write goes through consensus (decisions.md §91)',
    404: 'no contract at the address',
    503: "this node's contract threads are busy or the run took too long",
  },
});

export const templatesRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/templates',
  summary: 'contract templates: the shipped ones (builtin) first, then the registered ones in the order registered (decisions.md §51)',
  query: pageQuery({ default: 20, cap: 100 }, {
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('deprecated')])),
    author: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'a .node, or chain:system.templates for the shipped ones' })),
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  }),
  responses: { 200: pageAnswer('templates', TemplateView) },
});

export const templateRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/templates/:id',
  summary: 'one template with its ABI and bytecode, shipped or registered (decisions.md §51)',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'the template id (fungible-token, or tpl-<16 hex>)' }) }),
  responses: { 200: TemplateView, 404: 'no template of that id, or a deleted one' },
  // decisions.md §84: a registered template by its record and its code (the entry's value is
  // `bytecode_hex`), every template by its usage (a shipped one's other fields are the build's).
  proves: (req, answer) => [
    ...(TEMPLATE_ID.test(req.params.id) ? [templates.stateKey(req.params.id)] : []),
    ...(answer.builtin === false && typeof answer.bytecode_hash === 'string' ? [code.stateKey(answer.bytecode_hash)] : []),
    templateUsage.stateKey(req.params.id),
  ],
});

export const CONTRACTS_ROUTES = [contractsRoute, contractRoute, contractEventsRoute, tokenTransfersRoute, callRoute, templatesRoute, templateRoute];

async function contractView(ctx: QueryContext, r: ContractRecord): Promise<Record<string, unknown>> {
  return { address: r.address, owner: r.owner, code_hash: r.code_hash, name: r.name, description: r.description, template: r.template, decimals: r.decimals, deploy_tx: r.deploy_tx, created_height: r.created_height, code_size: r.code_size, security_score: r.security_score ?? null, risk_score: r.risk_score ?? null, model: r.model ?? null, score_source: r.score_source ?? null, app_name: await appNameOf(ctx, r.address) };
}

/** What the routes need of the plugin's runtime: where dry runs run, and the time of the last committed block. */
export interface CallRuntime {
  readonly offchain: () => ContractRuntime;
  readonly lastBlockTime: () => number;
}

export function contractsRoutes(routes: RouteTable, s: NodeServices, plugin: string, runtime: CallRuntime): void {
  const at = <T>(fn: (ctx: QueryContext) => Promise<T>): Promise<T> => s.query.run(plugin, fn);
  const index = (): IndexReader => s.index(plugin);

  routes.serve(contractsRoute, (req) =>
    at(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const owner = req.query.owner;
      const all = (await allContracts(ctx.store)).filter((c) => owner === undefined || c.owner === owner).sort((a, b) => b.created_height - a.created_height || (a.address < b.address ? -1 : 1));
      // Views (one names read each, for app_name) only for the page served.
      return countedPage('contracts', await Promise.all(all.slice(offset, offset + limit).map((c) => contractView(ctx, c))), all.length, limit, offset);
    }),
  );

  routes.serve(contractRoute, (req) =>
    at(async (ctx) => {
      const rec = await readContract(ctx.store, await contractAddressOf(ctx, req.params.address));
      if (!rec) throw notFound(`no contract at ${req.params.address}`);
      return contractView(ctx, rec);
    }),
  );

  /**
   * A page of an index list, newest first, reading at most offset + limit + 1 entries (a
   * contract's whole history per request would let anyone make the node read it all). When
   * more entries follow, `total` counts those walked (a lower bound, `total_exact: false`, as
   * the kernel's filtered transaction lists say).
   */
  const indexPage = (key: string, walked: ReadonlyArray<{ readonly value: unknown }>, limit: number, offset: number): Record<string, unknown> => {
    const items = walked.slice(offset, offset + limit).map((e) => e.value);
    const more = walked.length > offset + limit;
    return more ? { [key]: items, total: walked.length, total_exact: false, limit, offset, has_more: true } : { [key]: items, total: walked.length, limit, offset, has_more: false };
  };

  routes.serve(contractEventsRoute, async (req) => {
    const a = req.params.address;
    const { limit, offset } = toPage(req.query);
    return { contract: a, ...indexPage('events', await contractEvents.scan(index(), { prefix: [a], reverse: true, limit: offset + limit + 1 }), limit, offset) };
  });

  routes.serve(tokenTransfersRoute, async (req) => {
    const a = req.params.address;
    if (!isAddress(a)) throw badRequest(`"${a}" is not a chain address`);
    const { limit, offset } = toPage(req.query);
    return { address: a, ...indexPage('transfers', await tokenTransfers.scan(index(), { prefix: [a], reverse: true, limit: offset + limit + 1 }), limit, offset) };
  });

  routes.serve(callRoute, (req) => {
    const a = req.params.address;
    const body = parseCall(req.raw.body ?? {});
    if (body.dry_run === false) {
      // decisions.md §91 (part 1, Contract execution 11; part 2, 403): on every network, a
      // write goes through consensus.
      throw forbidden('a contract write through the call endpoint is refused (dry_run: false): state changes only in consensus, so send a transaction to the contract instead (POST /api/v1/transactions with data {"function", "args"})');
    }
    const twice = req.raw.bodyText === undefined ? undefined : duplicateJsonKey(req.raw.bodyText);
    if (twice !== undefined) throw badRequest(`"${twice}" appears twice in one object of the call: argument names must be unique`);
    return at(async (ctx) => dryRun(runtime.offchain(), ctx, runtime.lastBlockTime(), await contractAddressOf(ctx, a), body.data, body.caller ?? '', body.gas_limit));
  });

  routes.serve(templatesRoute, (req) =>
    at(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      return listPage('templates', await templateList(ctx.store, req.query), limit, offset);
    }),
  );
  routes.serve(templateRoute, (req) => at((ctx) => templateOne(ctx.store, req.params.id)));
}
