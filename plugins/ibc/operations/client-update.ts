import { defineOperation, isChainError } from '../../../kernel/sdk.js';
import { ClientUpdateBody } from '../schemas.js';
import { operatorProblem } from '../rules.js';
import { applyHeader, judgeHeader } from '../client.js';
import { IBC_SIGNING, IBC_TARGET } from './common.js';

/**
 * decisions.md §65: creates the client of a counterparty from an operator-supplied header, then
 * moves it only to rising headers signed by more than 2/3 of the set it trusts, adopting a new
 * set only through the header's proof of `ibc/valset`.
 */
export const clientUpdate = defineOperation({
  name: 'ibc_client_update',
  description: "creates or updates this chain's light client of a counterparty with a verified commit header (operator)",
  routes: [{ method: 'POST', path: '/api/v1/ibc/client/update' }],
  schema: ClientUpdateBody,
  signsFor: IBC_TARGET,
  value: null,
  gas: 200,
  signing: IBC_SIGNING,
  async check(ctx, op) {
    const role = await operatorProblem(ctx, op);
    if (role) return role;
    const judged = await judgeHeader(ctx.store, op.body.header);
    return isChainError(judged) ? judged : undefined;
  },
  async execute(ctx, op) {
    // check verified this header on this state an instant ago, in this block: read it, do not verify twice.
    const judged = await judgeHeader(ctx.store, op.body.header, false);
    if (isChainError(judged)) throw judged;
    await applyHeader(ctx, judged.header, judged.existing, op.txHash);
  },
});
