import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation, notFound } from '../../../kernel/sdk.js';
import { nodes, putNode, stakes } from '../store.js';
import { NODE_TARGET } from './register-node.js';

/**
 * `POST /api/v1/nodes/:address/unjail`: the owner asks a jailed node back once `jail_blocks` have
 * passed. A node whose stake is still at least `min_stake` also returns by itself after the jail
 * (part 1, Consensus 10); this is the same return, asked explicitly.
 */
export const unjail = defineOperation({
  name: 'unjail',
  description: 'returns a node from jail after jail_blocks',
  routes: [{ method: 'POST', path: '/api/v1/nodes/:address/unjail' }],
  schema: Type.Object({ address: Type.String() }, { additionalProperties: false }),
  signsFor: NODE_TARGET,
  value: null,
  gas: 50,
  async check(ctx, op) {
    const node = await nodes.get(ctx.store, op.actor);
    if (!node) return notFound(`node ${op.actor} is not registered`);
    if (node.jailed_until === 0) return badRequest(`node ${op.actor} is not jailed`);
    if (ctx.height < node.jailed_until) return badRequest(`node ${op.actor} is jailed until height ${node.jailed_until} (jail_blocks after its slash); this is height ${ctx.height}`);
    // Out of jail it would still be out of the set: say so rather than accept a no-op.
    const stake = (await stakes.get(ctx.store, op.actor))?.amount ?? 0n;
    const min = await ctx.params.get('min_stake');
    if (stake < min) return badRequest(`stake ${stake} is below min_stake ${min}: node ${op.actor} needs more stake to return to the set`);
    return undefined;
  },
  async execute(ctx, op) {
    await putNode(ctx.store, { ...(await nodes.get(ctx.store, op.actor))!, jailed_until: 0 });
  },
});
