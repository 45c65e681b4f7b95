import { badRequest, conflict, defineOperation, isAddress, notFound } from '../../../kernel/sdk.js';
import { AllowSchema, DisallowSchema } from '../schemas.js';
import { paidBy, pays, SPONSOR_TARGET, type Sponsorship } from '../store.js';
import { sponsorAllowed, sponsorDisallowed } from '../events.js';

/**
 * `POST /api/v1/sponsor/allow`: the sponsor names an account (or one session key of it) whose
 * fees its pool pays. Nobody draws on a pool by naming it: a transaction names no pool, the pool
 * pays only for those its owner allowed. Main key only.
 */
export const sponsorAllow = defineOperation({
  name: 'sponsor_allow',
  description: 'lets the sponsor\'s pool pay the fees of an account or of one of its session keys',
  routes: [{ method: 'POST', path: '/api/v1/sponsor/allow' }],
  schema: AllowSchema,
  signsFor: SPONSOR_TARGET,
  value: null,
  gas: 30,
  mainKeyOnly: 'choose whom a sponsor pool pays for',
  async check(ctx, op) {
    if (!isAddress(op.body.beneficiary)) return badRequest(`beneficiary: ${JSON.stringify(op.body.beneficiary)} is not a chain address`);
    if (op.body.beneficiary === op.actor) return badRequest('a sponsor pays for others: its own transactions are paid from its own balance');
    const existing = await paidBy.get(ctx.store, op.body.beneficiary);
    if (existing && existing.sponsor !== op.actor) return conflict(`${op.body.beneficiary} is already sponsored by ${existing.sponsor}`);
    return undefined;
  },
  async execute(ctx, op) {
    const s: Sponsorship = { sponsor: op.actor, beneficiary: op.body.beneficiary, session_pk: op.body.session_pk?.toLowerCase() ?? null, height: ctx.block.height };
    // The session key's hex, in both records, is sized by the protocol: not priced as growth (kernel/chain/state-growth.ts).
    if (s.session_pk !== null && !(await paidBy.get(ctx.store, s.beneficiary))?.session_pk) ctx.protocolSizedBytes(2 * s.session_pk.length);
    paidBy.set(ctx.store, s.beneficiary, s);
    pays.set(ctx.store, s.sponsor, s.beneficiary, s);
    sponsorAllowed.emit(ctx, { address: s.sponsor, beneficiary: s.beneficiary, session_pk: s.session_pk });
  },
});

/**
 * `POST /api/v1/sponsor/disallow`: the pool stops paying for the beneficiary from the next
 * transaction. Main key only. (Not a family with allow: its body has no `session_pk`.)
 */
export const sponsorDisallow = defineOperation({
  name: 'sponsor_disallow',
  description: 'stops the sponsor\'s pool paying for an account',
  routes: [{ method: 'POST', path: '/api/v1/sponsor/disallow' }],
  schema: DisallowSchema,
  signsFor: SPONSOR_TARGET,
  value: null,
  gas: 20,
  mainKeyOnly: 'choose whom a sponsor pool pays for',
  async check(ctx, op) {
    const s = isAddress(op.body.beneficiary) ? await pays.get(ctx.store, op.actor, op.body.beneficiary) : undefined;
    return s ? undefined : notFound(`${op.actor} does not sponsor ${op.body.beneficiary}`);
  },
  async execute(ctx, op) {
    paidBy.delete(ctx.store, op.body.beneficiary);
    pays.delete(ctx.store, op.actor, op.body.beneficiary);
    sponsorDisallowed.emit(ctx, { address: op.actor, beneficiary: op.body.beneficiary });
  },
});
