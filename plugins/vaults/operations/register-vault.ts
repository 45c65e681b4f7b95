import { Type } from '@sinclair/typebox';
import { badRequest, conflict, defineOperation, isKeyDerivedAddress, type ReadContext, foreignRecordError } from '../../../kernel/sdk.js';
import { labelProblem, NAME_PRICE_PARAM, namePrice } from '../../names/public.js';
import { vaults } from '../store.js';
import { joinVault } from '../proposals.js';
import { vaultCreated } from '../events.js';

const priceOf = async (ctx: ReadContext, label: string): Promise<bigint> => namePrice(Math.max(1, label.length), await ctx.params.get(NAME_PRICE_PARAM));

/**
 * `POST /api/v1/nodes/register` with `node_address` `chain:<name>.vault` (decisions.md §38, §43):
 * the route staking's `register_node` serves for every other body; this operation takes the
 * bodies whose `node_address` ends in `.vault` (`selectedBy`). The owner pays the §38 price
 * (burned) and the fee; no stake. The vault starts with the owner as its only member, threshold 1.
 */
export const registerVault = defineOperation({
  name: 'register_vault',
  description: 'registers a .vault (multi-signature) with its owner as sole member; the price is burned',
  routes: [{ method: 'POST', path: '/api/v1/nodes/register', selectedBy: Type.Object({ node_address: Type.String({ pattern: '\\.vault$' }) }) }],
  schema: Type.Object(
    { name: Type.String({ maxLength: 64 }), owner: Type.String(), node_address: Type.String(), consensus_public_key: Type.Optional(Type.String()) },
    { additionalProperties: false },
  ),
  signsFor: 'chain:system.node',
  value: null,
  gas: 100,
  debits: (ctx, op) => priceOf(ctx, op.body.name),
  async check(ctx, op) {
    const { name, node_address, consensus_public_key } = op.body;
    const refused = labelProblem(name, 'vault');
    if (refused) return refused;
    const address = `chain:${name}.vault`;
    // decisions.md §71, §73: a vault is created only on the shard that owns its address.
    if (!ctx.shard.owns(address)) return foreignRecordError(ctx.shard, address);
    if (node_address !== address) return badRequest(`node_address ${node_address} must be chain:<name>.vault with the body's name: ${address}`);
    if (consensus_public_key !== undefined) return badRequest('consensus_public_key is for a .node: a .vault has no consensus key');
    if (!isKeyDerivedAddress(op.actor)) return badRequest(`owner ${op.actor} must be a key-derived .human address (chain:<15 hex>.human)`);
    if (await vaults.has(ctx.store, address)) return conflict(`${address} is already registered`);
    const price = await priceOf(ctx, name);
    const balance = (await ctx.accounts.get(op.signer.account)).balance;
    if (balance < price) return badRequest(`insufficient balance: registering ${address} costs ${price} ucoin besides the fee; ${op.signer.account} has ${balance}`);
    return undefined;
  },
  async execute(ctx, op) {
    const address = `chain:${op.body.name}.vault`;
    const price = await priceOf(ctx, op.body.name);
    await ctx.burn(op.signer.account, price);
    vaults.set(ctx.store, address, { name: op.body.name, creator: op.actor, members: [op.actor], threshold: 1, created_height: ctx.block.height, proposal_count: 0 });
    await joinVault(ctx, op.actor, address);
    vaultCreated.emit(ctx, { address, creator: op.actor, price, tx_hash: op.txHash });
  },
});
