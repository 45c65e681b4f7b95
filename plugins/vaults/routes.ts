import { Type } from '@sinclair/typebox';
import { AddressString, accountStateKey, countedPage, defineRoute, formatCoin, listPage, notFound, pageAnswer, pageQuery, toPage, type NodeServices, type QueryContext, type RouteTable } from '../../kernel/sdk.js';
import { membershipCount, memberships, proposals, vaults } from './store.js';
import { proposalView, type VaultConfig } from './proposals.js';

const VaultConfigSchema = Type.Object({
  address: Type.String(),
  name: Type.String(),
  creator: Type.String(),
  members: Type.Array(Type.String(), { description: 'key-derived .human addresses in the order they joined' }),
  threshold: Type.Integer(),
  balance: Type.Integer(),
  balance_human: Type.String(),
  created_height: Type.Integer(),
});

const ProposalSchema = Type.Object({
  id: Type.Integer(),
  vault: Type.String(),
  kind: Type.String({ description: 'payout, add_member, remove_member or set_threshold' }),
  proposer: Type.String(),
  description: Type.String(),
  to: Type.Optional(Type.String()),
  amount: Type.Optional(Type.Integer()),
  amount_human: Type.Optional(Type.String()),
  member: Type.Optional(Type.String()),
  new_threshold: Type.Optional(Type.Integer()),
  signatures: Type.Array(Type.String()),
  status: Type.String({ description: 'open, executed, expired or cancelled' }),
  created_height: Type.Integer(),
  expires_height: Type.Integer(),
  executed_height: Type.Union([Type.Integer(), Type.Null()]),
  tx_hash: Type.String(),
});

export const vaultConfigRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/vault/:vault/config',
  summary: 'a vault: members, threshold, balance (decisions.md §43)',
  // Chain addresses, checked before the store is read: its key layout refuses any other text, and
  // that refusal was a 500 (the route fuzzer, issue 39).
  params: Type.Object({ vault: AddressString }),
  responses: { 200: VaultConfigSchema, 404: 'no such vault' },
  socketMethod: 'get_vault_config',
  // decisions.md §84: the vault's record, and its account for the balance.
  proves: (req) => [vaults.stateKey(req.params.vault), accountStateKey(req.params.vault)],
});

export const vaultProposalsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/vault/:vault/proposals',
  summary: 'a vault\'s proposals, newest first, optionally of one status',
  params: Type.Object({ vault: AddressString }),
  query: pageQuery({ default: 20, cap: 100 }, { status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('executed'), Type.Literal('expired'), Type.Literal('cancelled')])) }),
  responses: { 200: pageAnswer('proposals', ProposalSchema), 404: 'no such vault' },
  socketMethod: 'get_vault_proposals',
});

export const memberVaultsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/vault/member/:address',
  summary: 'the vaults an address is a member of, by vault address',
  params: Type.Object({ address: AddressString }),
  query: pageQuery({ default: 20, cap: 100 }),
  responses: { 200: pageAnswer('vaults', VaultConfigSchema) },
  socketMethod: 'list_member_vaults',
});

export const VAULT_ROUTES = [vaultConfigRoute, vaultProposalsRoute, memberVaultsRoute] as const;

async function configView(ctx: QueryContext, address: string, cfg: VaultConfig): Promise<Record<string, unknown>> {
  const balance = (await ctx.accounts.get(address)).balance;
  return { address, name: cfg.name, creator: cfg.creator, members: cfg.members, threshold: cfg.threshold, balance, balance_human: formatCoin(balance), created_height: cfg.created_height };
}

export function serveVaultRoutes(routes: RouteTable, s: NodeServices): void {
  routes.serve(vaultConfigRoute, (req) =>
    s.query.run('vaults', async (ctx) => {
      const cfg = await vaults.get(ctx.store, req.params.vault);
      if (cfg === undefined) throw notFound(`no vault ${req.params.vault}`);
      return configView(ctx, req.params.vault, cfg);
    }),
  );
  routes.serve(vaultProposalsRoute, (req) =>
    s.query.run('vaults', async (ctx) => {
      const vault = req.params.vault;
      if (!(await vaults.has(ctx.store, vault))) throw notFound(`no vault ${vault}`);
      const { limit, offset } = toPage(req.query);
      const rows = await proposals.scan(ctx.store, { prefix: [vault], reverse: true });
      const all = rows.filter((r) => req.query.status === undefined || r.value.status === req.query.status).map((r) => proposalView(vault, Number(r.key[1]), r.value));
      return listPage('proposals', all, limit, offset);
    }),
  );
  routes.serve(memberVaultsRoute, (req) =>
    s.query.run('vaults', async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const member = req.params.address;
      const total = (await membershipCount.get(ctx.store, member)) ?? 0;
      const rows = offset >= total ? [] : (await memberships.scan(ctx.store, { prefix: [member], limit: offset + limit })).slice(offset);
      const out = [];
      for (const row of rows) {
        const address = String(row.key[1]);
        const cfg = await vaults.get(ctx.store, address);
        if (cfg !== undefined) out.push(await configView(ctx, address, cfg));
      }
      return countedPage('vaults', out, total, limit, offset);
    }),
  );
}
