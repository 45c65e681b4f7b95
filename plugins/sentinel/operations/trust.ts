import { badRequest, isAddress, notFound, operationFamily } from '../../../kernel/sdk.js';
import { trustAdded, trustRemoved } from '../events.js';
import { TrustSchema } from '../schemas.js';
import { MAX_TRUSTED, trustList } from '../store.js';
import { TRUST_TARGET } from './held.js';

/** Adding and removing a trusted recipient: one body, one Signs-for address, only a main key. */
const trustOp = operationFamily({ schema: TrustSchema, signsFor: TRUST_TARGET, value: null, gas: 30, mainKeyOnly: 'manage the trust list' });

/** `POST /api/v1/trust/add`: trusted from `added_height + trust_activation_blocks` (decisions.md §37). */
export const trustAdd = trustOp({
  name: 'trust_add',
  description: 'adds a recipient to the owner\'s trust list; it counts after trust_activation_blocks',
  routes: [{ method: 'POST', path: '/api/v1/trust/add' }],
  socketMethod: 'trust_add',
  async check(ctx, op) {
    if (!isAddress(op.body.recipient)) return badRequest(`recipient ${op.body.recipient} is not an address`);
    if (op.body.recipient === op.actor) return badRequest('an account cannot trust itself');
    // §31: 409 is for a name or address taken; a second add of the same recipient is another broken rule (400).
    if (await trustList.has(ctx.store, op.actor, op.body.recipient)) return badRequest(`${op.body.recipient} is already on ${op.actor}'s trust list`);
    if ((await trustList.scan(ctx.store, { prefix: [op.actor] })).length >= MAX_TRUSTED) return badRequest(`a trust list holds at most ${MAX_TRUSTED} recipients`);
    return undefined;
  },
  async execute(ctx, op) {
    const delay = await ctx.params.get('trust_activation_blocks');
    const active_from = ctx.block.height + Number(delay < 0n ? 0n : delay);
    trustList.set(ctx.store, op.actor, op.body.recipient, { recipient: op.body.recipient, added_height: ctx.block.height, active_from });
    trustAdded.emit(ctx, { owner: op.actor, recipient: op.body.recipient, added_height: ctx.block.height, active_from });
  },
});

export const trustRemove = trustOp({
  name: 'trust_remove',
  description: 'removes a recipient from the owner\'s trust list, from the next transfer on',
  routes: [{ method: 'POST', path: '/api/v1/trust/remove' }],
  socketMethod: 'trust_remove',
  async check(ctx, op) {
    // A recipient that is no address was never added.
    if (!isAddress(op.body.recipient) || !(await trustList.has(ctx.store, op.actor, op.body.recipient))) return notFound(`${op.body.recipient} is not on ${op.actor}'s trust list`);
    return undefined;
  },
  async execute(ctx, op) {
    trustList.delete(ctx.store, op.actor, op.body.recipient);
    trustRemoved.emit(ctx, { owner: op.actor, recipient: op.body.recipient, height: ctx.block.height });
  },
});
