import { Type } from '@sinclair/typebox';
import { badRequest, conflict, defineOperation, forbidden, isKeyDerivedAddress, notFound, type ChainError, type ReadContext, foreignRecordError } from '../../../kernel/sdk.js';
import { contractsMethods, isContractAddress } from '../../contracts/public.js';
import { labelProblem, nameAddress } from '../price.js';
import { apps, appOfContract } from '../store.js';
import { appNameRegistered } from '../events.js';
import { NODE_TARGET, priceOf } from './register-name.js';

/** Why `contract` cannot be named by `owner` (§42): unknown 404, another's 403, named already 409. */
async function contractProblem(ctx: ReadContext, contract: string, owner: string): Promise<ChainError | undefined> {
  if (!isContractAddress(contract)) return badRequest(`contract ${contract} must be a deployed contract's address (chain:<10 hex>.app)`);
  if (!(await ctx.methods.active(contractsMethods))) return notFound(`no contract ${contract}: contracts are not enabled on this network`);
  const contractOwner = await ctx.methods.of(contractsMethods).contractOwner(contract);
  if (contractOwner === undefined) return notFound(`no contract at ${contract}`);
  if (contractOwner !== owner) return forbidden(`${owner} does not own ${contract}: its owner is ${contractOwner}`);
  const named = await appOfContract.get(ctx.store, contract);
  if (named !== undefined) return conflict(`${contract} is already named ${named}: one name per contract`);
  return undefined;
}

/**
 * `POST /api/v1/nodes/register` with `node_address` `chain:<name>.app` (decisions.md §38, §42):
 * the route staking's `register_node` serves for every other body; this operation takes the
 * bodies whose `node_address` ends in `.app` (`selectedBy`). Binds the label to `contract`, a
 * contract `owner` deployed; the owner pays the §38 price (burned) and the fee. An app name is not
 * an NFT: it stays with the contract.
 */
export const registerApp = defineOperation({
  name: 'register_app',
  description: 'registers an .app name for a contract its owner deployed; the price is burned',
  routes: [{ method: 'POST', path: '/api/v1/nodes/register', selectedBy: Type.Object({ node_address: Type.String({ pattern: '\\.app$' }) }) }],
  schema: Type.Object(
    {
      name: Type.String({ maxLength: 64, description: 'the bare label (decisions.md §32)' }),
      owner: Type.String({ description: 'a key-derived .human: the contract\'s owner; pays price + fee' }),
      node_address: Type.String({ description: 'chain:<name>.app' }),
      contract: Type.String({ description: 'the contract\'s address, chain:<10 hex>.app' }),
      consensus_public_key: Type.Optional(Type.String({ description: 'refused: for a .node only' })),
    },
    { additionalProperties: false },
  ),
  signsFor: NODE_TARGET,
  value: null,
  gas: 100,
  // Takes the price besides the fee: admission holds it, a session key's cap counts it (decisions.md §95).
  debits: (ctx, op) => priceOf(ctx, op.body.name),
  async check(ctx, op) {
    const { name, node_address, consensus_public_key, contract } = op.body;
    const refused = labelProblem(name, 'app');
    if (refused) return refused;
    const address = nameAddress(name, 'app');
    // decisions.md §71, §73: a name is created only on the shard that owns its address.
    if (!ctx.shard.owns(address)) return foreignRecordError(ctx.shard, address);
    if (node_address !== address) return badRequest(`node_address ${node_address} must be chain:<name>.app with the body's name: ${address}`);
    if (consensus_public_key !== undefined) return badRequest('consensus_public_key is for a .node: an .app name has no consensus key');
    if (!isKeyDerivedAddress(op.actor)) return badRequest(`owner ${op.actor} must be a key-derived .human address (chain:<15 hex>.human)`);
    if (await apps.has(ctx.store, address)) return conflict(`${address} is already registered`);
    const unnamable = await contractProblem(ctx, contract, op.actor);
    if (unnamable) return unnamable;
    const price = await priceOf(ctx, name);
    const balance = (await ctx.accounts.get(op.signer.account)).balance;
    if (balance < price) return badRequest(`insufficient balance: registering ${address} costs ${price} ucoin besides the fee; ${op.signer.account} has ${balance}`);
    return undefined;
  },
  async execute(ctx, op) {
    const address = nameAddress(op.body.name, 'app');
    const price = await priceOf(ctx, op.body.name);
    await ctx.burn(op.signer.account, price);
    apps.set(ctx.store, address, { label: op.body.name, app_name: address, address: op.body.contract, owner: op.actor, registered_height: ctx.block.height, price, tx_hash: op.txHash });
    appOfContract.set(ctx.store, op.body.contract, address);
    appNameRegistered.emit(ctx, { address, name: op.body.name, owner: op.actor, contract: op.body.contract, price, tx_hash: op.txHash });
  },
});
