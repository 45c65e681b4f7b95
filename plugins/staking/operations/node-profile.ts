import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation, ML_DSA65_PUBLIC_KEY_BYTES, notFound } from '../../../kernel/sdk.js';
import { nodes, putNode } from '../store.js';
import { CONSENSUS_KEY, NODE_TARGET } from './register-node.js';

const PATH = '/api/v1/nodes/:address/profile';

/**
 * `PUT|POST /api/v1/nodes/:address/profile` (part 1; decisions.md §22): the owner (through the
 * `.node`, §19) sets any of the profile fields; `commission_bps` at most `max_commission_bps`;
 * `consensus_public_key` sets or changes the key the node signs blocks with.
 */
export const nodeProfile = defineOperation({
  name: 'update_node_profile',
  description: 'sets a node\'s profile, commission or consensus key',
  routes: [
    { method: 'PUT', path: PATH },
    { method: 'POST', path: PATH },
  ],
  schema: Type.Object(
    {
      address: Type.String(),
      description: Type.Optional(Type.String({ maxLength: 1000 })),
      website: Type.Optional(Type.String({ maxLength: 200 })),
      commission_bps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
      p2p_endpoint: Type.Optional(Type.String({ maxLength: 200 })),
      rpc_endpoint: Type.Optional(Type.String({ maxLength: 200 })),
      consensus_public_key: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
  signsFor: NODE_TARGET,
  value: null,
  gas: 50,
  async check(ctx, op) {
    if (!(await nodes.get(ctx.store, op.actor))) return notFound(`node ${op.actor} is not registered`);
    const max = await ctx.params.get('max_commission_bps');
    if (op.body.commission_bps !== undefined && BigInt(op.body.commission_bps) > max) return badRequest(`commission_bps ${op.body.commission_bps} is above max_commission_bps ${max}`);
    if (op.body.consensus_public_key !== undefined && !CONSENSUS_KEY.test(op.body.consensus_public_key)) return badRequest(`consensus_public_key must be ${ML_DSA65_PUBLIC_KEY_BYTES * 2} lowercase hex characters (ML-DSA-65)`);
    return undefined;
  },
  async execute(ctx, op) {
    const node = (await nodes.get(ctx.store, op.actor))!;
    const b = op.body;
    // A first consensus key's hex is sized by the protocol: not priced as growth (kernel/chain/state-growth.ts); the profile's texts are.
    if (b.consensus_public_key !== undefined && node.consensus_public_key === '') ctx.protocolSizedBytes(b.consensus_public_key.length);
    await putNode(ctx.store, {
      ...node,
      description: b.description ?? node.description,
      website: b.website ?? node.website,
      commission_bps: b.commission_bps !== undefined ? BigInt(b.commission_bps) : node.commission_bps,
      p2p_endpoint: b.p2p_endpoint ?? node.p2p_endpoint,
      rpc_endpoint: b.rpc_endpoint ?? node.rpc_endpoint,
      consensus_public_key: b.consensus_public_key ?? node.consensus_public_key,
    });
  },
});
