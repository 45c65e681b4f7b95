import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import { activeSet, operatorProblem, tally } from '../operators.js';
import { whitelist, type WhitelistEntry } from '../store.js';

export const WHITELIST_ADDRESS = 'chain:system.whitelist';
export const WHITELIST_GAS = 20;

export const WhitelistBody = Type.Object(
  {
    signer: Type.String({ minLength: 1, maxLength: 128, description: 'the approving operator: a .node of the active validator set, acting through its owner' }),
    bytecode_hash: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: '0x + SHA3-256 of the bytecode' }),
    remove: Type.Optional(Type.Boolean({ description: 'true: approve taking the hash off the trusted list' })),
  },
  { additionalProperties: false },
);

type Body = typeof WhitelistBody.static;

/** The action a body approves, refused when it cannot be approved now (§49: 400). */
async function actionProblem(ctx: ReadContext, signer: string, b: Body): Promise<ChainError | undefined> {
  const rec = await whitelist.get(ctx.store, b.bytecode_hash);
  if (b.remove === true) {
    if (rec?.status !== 'trusted') return badRequest(`${b.bytecode_hash} is not trusted: there is nothing to remove`);
  } else if (rec?.status === 'trusted') {
    return badRequest(`${b.bytecode_hash} is already trusted`);
  }
  if (rec && rec.approvals.includes(signer)) return badRequest(`${signer} has already approved ${b.remove === true ? 'removing' : 'trusting'} ${b.bytecode_hash}`);
  return undefined;
}

/**
 * `POST /api/v1/contracts/whitelist` (decisions.md §49): one operator's approval of trusting a
 * bytecode hash (or removing it); the action applies in the block where the approvals of active
 * validators hold more than 2/3 of the active power, and its approvals are then cleared.
 */
export const whitelistOperation = defineOperation({
  name: 'whitelist',
  description: 'an analyzer operator approves trusting (or removing) a bytecode hash (decisions.md §49)',
  routes: [{ method: 'POST', path: '/api/v1/contracts/whitelist', nodeOnly: true }],
  schema: WhitelistBody,
  actor: 'signer',
  signsFor: WHITELIST_ADDRESS,
  value: null,
  gas: WHITELIST_GAS,
  mainKeyOnly: 'approve as an analyzer operator',
  async check(ctx, op) {
    return (await operatorProblem(ctx, op.actor)) ?? (await actionProblem(ctx, op.actor, op.body));
  },
  async execute(ctx, op) {
    const b = op.body;
    const rec = await whitelist.get(ctx.store, b.bytecode_hash);
    const set = await activeSet(ctx);
    const t = tally(set, [...(rec?.approvals ?? []), op.actor]);
    const action = b.remove === true ? 'remove' : 'trust';
    let next: WhitelistEntry;
    if (!t.passed) next = { bytecode_hash: b.bytecode_hash, status: rec?.status ?? 'pending', action, approvals: t.approvals, trusted_height: rec?.trusted_height ?? null };
    else if (action === 'trust') next = { bytecode_hash: b.bytecode_hash, status: 'trusted', action: 'remove', approvals: [], trusted_height: ctx.block.height };
    else next = { bytecode_hash: b.bytecode_hash, status: 'removed', action: 'trust', approvals: [], trusted_height: null };
    whitelist.set(ctx.store, b.bytecode_hash, next);
  },
});
