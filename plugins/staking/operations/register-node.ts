import { Type } from '@sinclair/typebox';
import { addressKind, badRequest, conflict, defineOperation, foreignRecordError, ML_DSA65_PUBLIC_KEY_BYTES } from '../../../kernel/sdk.js';
import { DEFAULT_COMMISSION_BPS } from '../params.js';
import { nodes, putNode, putStake } from '../store.js';
import { nodeRegistered } from '../events.js';

export const NODE_TARGET = 'chain:system.node';

/** decisions.md §32: a bare label of 1–32 characters of a-z, 0-9 and -, not starting or ending with -. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
export const CONSENSUS_KEY = new RegExp(`^[0-9a-f]{${ML_DSA65_PUBLIC_KEY_BYTES * 2}}$`);

/**
 * `POST /api/v1/nodes/register` (part 1, Staking 2; decisions.md §22, §32): a `.human` owner
 * registers `chain:<name>.node`; `min_stake` is debited from the owner and recorded as the node's
 * self-stake. 409 when the name is taken. `consensus_public_key` (optional) puts the key on chain,
 * which with the stake makes the node eligible for the active set.
 */
export const registerNode = defineOperation({
  name: 'register_node',
  description: 'registers a .node and bonds min_stake as its self-stake',
  routes: [{ method: 'POST', path: '/api/v1/nodes/register' }],
  socketMethod: 'register_node',
  schema: Type.Object(
    { name: Type.String({ maxLength: 64 }), owner: Type.String(), node_address: Type.Optional(Type.String()), consensus_public_key: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
  signsFor: NODE_TARGET,
  value: null,
  gas: 100,
  // Signs no value, but bonds min_stake from the owner: a session key's cap counts it (decisions.md §95).
  debits: (ctx) => ctx.params.get('min_stake'),
  async check(ctx, op) {
    const { name, node_address, consensus_public_key } = op.body;
    if (!LABEL.test(name)) return badRequest(`name "${name}" must be 1 to 32 characters of a-z, 0-9 and -, not starting or ending with -`);
    if (addressKind(op.actor) !== 'human') return badRequest(`owner ${op.actor} must be a .human address`);
    const address = `chain:${name}.node`;
    // decisions.md §71, §73: a `.node` is created only on the shard that owns its address.
    if (!ctx.shard.owns(address)) return foreignRecordError(ctx.shard, address);
    if (node_address !== undefined && node_address !== address) return badRequest(`node_address ${node_address} must be ${address}: registering .app or .vault addresses is not served by this endpoint`);
    if (consensus_public_key !== undefined && !CONSENSUS_KEY.test(consensus_public_key)) return badRequest(`consensus_public_key must be ${ML_DSA65_PUBLIC_KEY_BYTES * 2} lowercase hex characters (ML-DSA-65)`);
    if ((await nodes.get(ctx.store, address)) || (await ctx.validators.latest()).some((v) => v.address === address)) return conflict(`${address} is already registered`);
    const min = await ctx.params.get('min_stake');
    const funds = (await ctx.accounts.get(op.signer.account)).balance;
    if (funds < min) return badRequest(`insufficient balance: registering a node bonds min_stake (${min} ucoin); ${op.signer.account} has ${funds}`);
    return undefined;
  },
  async execute(ctx, op) {
    const address = `chain:${op.body.name}.node`;
    const min = await ctx.params.get('min_stake');
    await ctx.accounts.debit(op.signer.account, min);
    // The consensus key's hex is sized by the protocol: not priced as growth (kernel/chain/state-growth.ts); a description is.
    if (op.body.consensus_public_key !== undefined) ctx.protocolSizedBytes(op.body.consensus_public_key.length);
    await putNode(ctx.store, { address, owner: op.actor, consensus_public_key: op.body.consensus_public_key ?? '', commission_bps: DEFAULT_COMMISSION_BPS, description: '', website: '', p2p_endpoint: '', rpc_endpoint: '', registered_height: ctx.block.height, jailed_until: 0 });
    await putStake(ctx.store, address, { amount: min, unlock_height: ctx.block.height + Number(await ctx.params.get('unbonding_blocks')), paid_to: ctx.block.height, genesis: false, bonded_height: ctx.block.height, added_height: ctx.block.height }, ctx.block.height);
    nodeRegistered.emit(ctx, { address, owner: op.actor, stake: min });
  },
});
