import { conflict, badRequest, defineOperation, isKeyDerivedAddress, type ReadContext, type TypedEvent, foreignRecordError } from '../../../kernel/sdk.js';
import { RegisterNameBody } from '../schemas.js';
import { NAME_PRICE_PARAM, labelProblem, nameAddress, namePrice } from '../price.js';
import { nfts } from '../store.js';
import { createNft } from '../records.js';
import { agentRegistered, nameRegistered } from '../events.js';

/** What registering `label` costs now (§38), from the governance parameter. */
export async function priceOf(ctx: ReadContext, label: string): Promise<bigint> {
  return namePrice(Math.max(1, label.length), await ctx.params.get(NAME_PRICE_PARAM));
}

interface NftKindSpec {
  readonly kind: 'human' | 'agent';
  readonly type: string;
  readonly description: string;
  readonly path: string;
  readonly signsFor: string;
  readonly socketMethod?: string;
  readonly nodeOnly?: boolean;
  readonly event: TypedEvent<typeof nameRegistered.data>;
}

/**
 * Registering a `.human` name or an `.agent` (decisions.md §38, §41): the same rules and price,
 * each its own namespace, route and Signs-for address. The owner pays price + fee; the price is
 * burned (`fees_burned`, `total_burned`). Every rule is `check`ed at admission and again in the
 * block, so a second registration of a label admitted while the first was pending fails there
 * with its fee consumed and no price charged.
 */
function registerNftOperation(k: NftKindSpec) {
  return defineOperation({
    name: k.type,
    description: k.description,
    routes: [{ method: 'POST', path: k.path, ...(k.nodeOnly === true ? { nodeOnly: true } : {}) }],
    ...(k.socketMethod !== undefined ? { socketMethod: k.socketMethod } : {}),
    schema: RegisterNameBody,
    signsFor: k.signsFor,
    value: null,
    gas: 100,
    // Takes the price besides the fee: a session key's cap counts it (decisions.md §95).
    debits: (ctx, op) => priceOf(ctx, op.body.name),
    async check(ctx, op) {
      const refused = labelProblem(op.body.name, k.kind);
      if (refused) return refused;
      if (!isKeyDerivedAddress(op.actor)) return badRequest(`owner ${op.actor} must be a key-derived .human address (chain:<15 hex>.human)`);
      const address = nameAddress(op.body.name, k.kind);
      // decisions.md §71, §73: a name is created only on the shard that owns its address.
      if (!ctx.shard.owns(address)) return foreignRecordError(ctx.shard, address);
      if (await nfts.has(ctx.store, address)) return conflict(`${address} is already registered`);
      const price = await priceOf(ctx, op.body.name);
      const balance = (await ctx.accounts.get(op.signer.account)).balance;
      if (balance < price) return badRequest(`insufficient balance: registering ${address} costs ${price} ucoin besides the fee; ${op.signer.account} has ${balance}`);
      return undefined;
    },
    async execute(ctx, op) {
      const address = nameAddress(op.body.name, k.kind);
      const price = await priceOf(ctx, op.body.name);
      await ctx.burn(op.signer.account, price);
      await createNft(ctx.store, address, { kind: k.kind, name: op.body.name, owner: op.actor, price, height: ctx.block.height, txHash: op.txHash });
      k.event.emit(ctx, { address, name: op.body.name, owner: op.actor, price, tx_hash: op.txHash });
    },
  });
}

export const NAME_TARGET = 'chain:system.name';
export const AGENT_TARGET = 'chain:system.agent';
/** `POST /api/v1/nodes/register`'s Signs-for address, whichever kind it registers (§38). */
export const NODE_TARGET = 'chain:system.node';

/** `POST /api/v1/addresses/human` (Node only; the socket method `register_human` reaches it through the gateway's node client). */
export const registerHuman = registerNftOperation({
  kind: 'human',
  type: 'register_human',
  description: 'registers a custom .human name; its price by length is burned',
  path: '/api/v1/addresses/human',
  signsFor: NAME_TARGET,
  nodeOnly: true,
  socketMethod: 'register_human',
  event: nameRegistered,
});

export const registerAgent = registerNftOperation({
  kind: 'agent',
  type: 'register_agent',
  description: 'registers an .agent identity (an NFT); its price by length is burned',
  path: '/api/v1/agents/register',
  signsFor: AGENT_TARGET,
  event: agentRegistered,
});
