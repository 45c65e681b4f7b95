import { badRequest, definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { expiries, membershipCount, memberships, openProposals, proposals, vaults } from './store.js';
import { proposalCancelled, proposalCreated, proposalExecuted, proposalExpired, proposalSigned, vaultCreated } from './events.js';
import { registerVault } from './operations/register-vault.js';
import { addMember, createPayout, removeMember, setThreshold, signProposal } from './operations/proposals.js';
import { EXPIRY_PARAM, expireDue } from './proposals.js';
import { serveVaultRoutes, VAULT_ROUTES } from './routes.js';

/**
 * Multi-signature vaults in consensus (decisions.md §43–44). Part 1 marks vaults "applied by the
 * receiving node, not in consensus"; here every vault operation is a signed operation carried in
 * a block and applied on every validator, so any node or the gateway may be used. A vault's
 * coins are its own account's: plain transfers credit it (the `vault` address kind), and they
 * leave only by an executed payout (a plain transaction from a vault is refused).
 */
export const vaultsPlugin = definePlugin<Record<string, never>, NodeServices>({
  name: 'vaults',
  kind: 'state',
  description: 'multi-signature vaults: creation, proposals, signatures, payouts and member changes, all in consensus',
  dependencies: ['names'],
  stores: [vaults, memberships, membershipCount, proposals, openProposals, expiries],
  events: [vaultCreated, proposalCreated, proposalSigned, proposalExecuted, proposalCancelled, proposalExpired],
  operations: [registerVault, createPayout, addMember, removeMember, setThreshold, signProposal],
  routes: VAULT_ROUTES,
  addressKinds: [{ kind: 'vault', gas: 21, description: 'a deposit into a vault\'s own balance', sendRefusal: 'coins leave a vault only by an executed payout proposal (decisions.md §43)', txType: 'transfer' }],
  params: [{ key: EXPIRY_PARAM, default: 216_000n, min: 1n, max: 1_000_000_000n, description: 'blocks an open vault proposal lives before it expires (decisions.md §44)' }],
  register(api) {
    api.hooks.recordExists.for('vault').tapPromise(api.name, async (ctx, address) => ((await vaults.has(ctx.store, address)) ? true : undefined));
    // A plain transfer to a vault credits the vault's own balance (unlike a .node's, §43).
    api.hooks.executeTx.for('kind:vault').tapPromise(api.name, async (ctx, tx) => {
      if (!(await vaults.has(ctx.store, tx.to))) throw badRequest(`no vault ${tx.to}`);
      await ctx.accounts.transfer(tx.from, tx.to, tx.value, { payment: true });
      return undefined;
    });
    api.hooks.beginBlock.tapPromise(api.name, (ctx) => expireDue(ctx));
    api.hooks.routes.tap(api.name, (routes) => serveVaultRoutes(routes, api.services));
  },
});
