import { badRequest, conflict, defineOperation, isAddress, notFound, requireMainKey } from '../../../kernel/sdk.js';
import { TrustSchema } from '../schemas.js';
import { MAX_TRUSTED, trustPath, trustPrefix, type TrustEntry } from '../store.js';
import { TRUST_TARGET } from './held.js';

/** `POST /api/v1/trust/add`: trusted from `added_height + trust_activation_blocks` (decisions.md §37). */
export const trustAdd = defineOperation({
  name: 'trust_add',
  description: 'adds a recipient to the owner\'s trust list; it counts after trust_activation_blocks',
  routes: [{ method: 'POST', path: '/api/v1/trust/add' }],
  socketMethod: 'trust_add',
  schema: TrustSchema,
  signsFor: TRUST_TARGET,
  value: null,
  gas: 30,
  async check(ctx, op) {
    const mainOnly = requireMainKey(op.signer, 'manage the trust list');
    if (mainOnly) return mainOnly;
    if (!isAddress(op.body.recipient)) return badRequest(`recipient ${op.body.recipient} is not an address`);
    if (op.body.recipient === op.actor) return badRequest('an account cannot trust itself');
    if (await ctx.store.getRecord<TrustEntry>(trustPath(op.actor, op.body.recipient))) return conflict(`${op.body.recipient} is already on ${op.actor}'s trust list`);
    if ((await ctx.store.scan(trustPrefix(op.actor))).length >= MAX_TRUSTED) return badRequest(`a trust list holds at most ${MAX_TRUSTED} recipients`);
    return undefined;
  },
  async execute(ctx, op) {
    const delay = await ctx.params.get('trust_activation_blocks');
    const active_from = ctx.block.height + Number(delay < 0n ? 0n : delay);
    ctx.store.setRecord<TrustEntry>(trustPath(op.actor, op.body.recipient), { recipient: op.body.recipient, added_height: ctx.block.height, active_from });
    ctx.emit({ type: 'trust_added', data: { owner: op.actor, recipient: op.body.recipient, added_height: ctx.block.height, active_from } });
  },
});

export const trustRemove = defineOperation({
  name: 'trust_remove',
  description: 'removes a recipient from the owner\'s trust list, from the next transfer on',
  routes: [{ method: 'POST', path: '/api/v1/trust/remove' }],
  socketMethod: 'trust_remove',
  schema: TrustSchema,
  signsFor: TRUST_TARGET,
  value: null,
  gas: 30,
  async check(ctx, op) {
    const mainOnly = requireMainKey(op.signer, 'manage the trust list');
    if (mainOnly) return mainOnly;
    if (!(await ctx.store.getRecord<TrustEntry>(trustPath(op.actor, op.body.recipient)))) return notFound(`${op.body.recipient} is not on ${op.actor}'s trust list`);
    return undefined;
  },
  async execute(ctx, op) {
    ctx.store.delete(trustPath(op.actor, op.body.recipient));
    ctx.emit({ type: 'trust_removed', data: { owner: op.actor, recipient: op.body.recipient, height: ctx.block.height } });
  },
});
