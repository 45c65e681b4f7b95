import { definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { activeSetUpdates } from './active-set.js';
import { payeeOf, payRewardsIfDue } from './ledger.js';
import { delegate } from './operations/delegate.js';
import { nodeProfile } from './operations/node-profile.js';
import { registerNode } from './operations/register-node.js';
import { stake } from './operations/stake.js';
import { undelegate } from './operations/undelegate.js';
import { unjail } from './operations/unjail.js';
import { unstake } from './operations/unstake.js';
import { DEFAULT_COMMISSION_BPS, STAKING_PARAMS } from './params.js';
import { STAKING_ROUTES, stakingRoutes } from './routes.js';
import { nodes, putNode, putStake, STAKING_STORES } from './store.js';
import { STAKING_EVENTS } from './events.js';
import { stakingMethods } from './methods.js';
import { slashDoubleSign } from './slashing.js';
import { STAKING_SUPPLY } from './supply.js';

/**
 * Staking (part 1, "Staking and delegation", Consensus 2, 5, 7): nodes, self-stake, delegation,
 * rewards, and the active set re-derived from them every block and handed to consensus through
 * endBlock validator updates. Slashing comes with the evidence hook's reporter (plugins/staking/README.md).
 */
export const stakingPlugin = definePlugin<Record<string, unknown>, NodeServices>({
  name: 'staking',
  kind: 'state',
  description: 'validators from stake: nodes, stake, delegation, rewards, the active set',
  params: STAKING_PARAMS,
  methods: stakingMethods,
  operations: [registerNode, nodeProfile, unjail, stake, unstake, delegate, undelegate],
  // Listed so the gateway forwards them under these declarations (the slashing history is nodeOnly).
  routes: STAKING_ROUTES,
  // A plain transfer to a `.node` credits its owner (decisions.md §30).
  addressKinds: [{ kind: 'node', gas: 21, description: 'a plain transfer to a .node credits its owner', txType: 'transfer' }],
  stores: STAKING_STORES,
  events: STAKING_EVENTS,
  supply: STAKING_SUPPLY,
  register(api) {
    // Genesis validators are nodes owned by their join statement's owner (decisions.md §82: the
    // address their key derives, §19, unless another key signed as owner), with their genesis
    // stake as self-stake at the genesis rate and the P2P endpoint they joined with, locked like
    // any other: until unbonding_blocks from genesis (§96), so none can leave at once and vote
    // with nothing to slash.
    api.hooks.initGenesis.tapPromise(api.name, async (ctx) => {
      const unlock = Number(await ctx.params.get('unbonding_blocks'));
      for (const v of ctx.genesis.validators) {
        await putNode(ctx.store, { address: v.address, owner: v.owner, consensus_public_key: v.public_key, commission_bps: DEFAULT_COMMISSION_BPS, description: '', website: '', p2p_endpoint: v.p2p_endpoint, rpc_endpoint: '', registered_height: 0, jailed_until: 0 });
        await putStake(ctx.store, v.address, { amount: BigInt(v.stake), unlock_height: unlock, paid_to: 0, genesis: true, bonded_height: 0, added_height: 0 }, 0);
      }
    });
    api.hooks.ownerOf.for('node').tapPromise(api.name, async (ctx, address) => (await nodes.get(ctx.store, address))?.owner);
    api.hooks.recordExists.for('node').tapPromise(api.name, async (ctx, address) => (await nodes.get(ctx.store, address)) !== undefined);
    api.hooks.executeTx.for('kind:node').tapPromise(api.name, async (ctx, tx) => {
      const owner = await payeeOf(ctx.store, tx.to);
      // A plain payment: the sentinel may hold it and credit the owner on release (decisions.md §99).
      await ctx.accounts.transfer(tx.from, owner, tx.value, { payment: true });
      return undefined;
    });
    api.hooks.beginBlock.tapPromise(api.name, (ctx) => payRewardsIfDue(ctx));
    api.hooks.evidence.tapPromise(api.name, (ctx, ev) => slashDoubleSign(ctx, ev));
    api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
      const updates = await activeSetUpdates(ctx);
      return updates.length === 0 ? result : { ...result, validatorUpdates: [...result.validatorUpdates, ...updates] };
    });
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => stakingRoutes(routes, api.services, api.name)));
  },
});
