import { badRequest, defineOperation, forbidden, fractionText, notFound, type OperationInput, type ReadContext, type TxContext } from '../../../kernel/sdk.js';
import { HeldActionSchema } from '../schemas.js';
import { heldTransfers, holdsByAddress, holdsDue, type HeldTransfer } from '../store.js';
import { txCancelled, txRefunded, txReleased } from '../events.js';
import { heldView } from '../policy.js';

export const TRUST_TARGET = 'chain:system.trust';

/**
 * This node's own layouts for confirm and cancel, which name the transfer's hash and the act:
 * `ch-held-confirm|<owner>|<tx hash>|<nonce>` and `ch-held-cancel|<owner>|<tx hash>|<nonce>`.
 * Also accepted (decisions.md §89): part 2's `ch-tx-v2|<owner>|chain:system.trust|0|<nonce>`
 * where the network takes v2 (it names neither the hash nor the act), and ch-tx-v3/v4 with
 * `hash` in the body equal to the path's (v4 only where strong signatures are required).
 */
export const heldMessages = {
  confirm: (b: { owner: string; hash: string }, nonce: bigint): string => `ch-held-confirm|${b.owner}|${b.hash}|${nonce}`,
  cancel: (b: { owner: string; hash: string }, nonce: bigint): string => `ch-held-cancel|${b.owner}|${b.hash}|${nonce}`,
};

type Body = { owner?: string; hash: string };

async function heldProblem(ctx: ReadContext, op: OperationInput<Body>) {
  const h = await heldTransfers.get(ctx.store, op.body.hash);
  if (!h) return notFound(`no held transfer ${op.body.hash}`);
  if (h.from !== op.actor) return forbidden(`${op.actor} is not the owner of held transfer ${op.body.hash} (its sender is ${h.from})`);
  if (h.status !== 'held') return badRequest(`transfer ${op.body.hash} is no longer held: ${h.status} in block ${h.resolved_height}`);
  return undefined;
}

/** Ends a hold: coins to `to` (released) or back to the sender (cancelled, refunded); the markers go. */
export async function resolveHold(ctx: Omit<TxContext, 'tx' | 'gasLimit'>, h: HeldTransfer, status: 'released' | 'cancelled' | 'refunded'): Promise<HeldTransfer> {
  await ctx.accounts.credit(status === 'released' ? h.to : h.from, h.value);
  const done: HeldTransfer = { ...h, status, resolved_height: ctx.block.height };
  heldTransfers.set(ctx.store, h.tx_hash, done);
  holdsByAddress.delete(ctx.store, h.from, h.tx_hash);
  if (h.to !== h.from) holdsByAddress.delete(ctx.store, h.to, h.tx_hash);
  const due = h.release_height ?? h.expiry_height;
  if (due !== null) holdsDue.delete(ctx.store, due, h.tx_hash);
  const event = status === 'released' ? txReleased : status === 'cancelled' ? txCancelled : txRefunded;
  const v = heldView(done);
  event.emit(ctx, { tx_hash: h.tx_hash, from: h.from, to: h.to, value: h.value, value_human: v.value_human as string, score: fractionText(h.score_bp), category: h.category, height: ctx.block.height });
  return done;
}

/**
 * Confirm and cancel differ only in their names, their signed tag, the act a main key alone may
 * do and where the coins go: one builder rather than an `operationFamily`, whose members cannot
 * set their own signed layout or main-key words.
 */
function heldAction(action: 'confirm' | 'cancel', description: string, outcome: 'released' | 'cancelled') {
  return defineOperation({
    name: `held_${action}`,
    description,
    routes: [{ method: 'POST', path: `/api/v1/transactions/:hash/${action}` }],
    socketMethod: `${action}_held`,
    schema: HeldActionSchema,
    // decisions.md §89: the hash comes from the path; a v3/v4 signature must carry it in the body.
    pathFields: ['hash'],
    // Part 2's layout has no body field but the owner: left out, it is the signing key's address.
    actorFromKey: true,
    signsFor: TRUST_TARGET,
    value: null,
    gas: 30,
    signing: { message: (op) => heldMessages[action]({ owner: op.actor, hash: op.body.hash }, op.nonce), acceptsTxLayouts: true },
    mainKeyOnly: `${action} a held transfer`,
    check: (ctx, op) => heldProblem(ctx, op),
    async execute(ctx, op) {
      await resolveHold(ctx, (await heldTransfers.get(ctx.store, op.body.hash))!, outcome);
    },
  });
}

export const confirmHeld = heldAction('confirm', 'the owner confirms a held transfer: released now', 'released');
export const cancelHeld = heldAction('cancel', 'the owner cancels a held transfer: the coins return to the sender', 'cancelled');
