import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

const PoolMove = Type.Object({ address: Type.String({ description: 'the sponsor' }), amount: Type.Integer({ minimum: 1, description: 'ucoin' }) });

export const sponsorDeposited = defineEvent({ type: 'sponsor_deposit', description: 'a sponsor added coins to its pool', data: PoolMove, socket: true });

export const sponsorWithdrew = defineEvent({ type: 'sponsor_withdraw', description: 'a sponsor took coins back from its pool', data: PoolMove, socket: true });

export const sponsorAllowed = defineEvent({
  type: 'sponsor_allowed',
  description: "a sponsor's pool pays for a beneficiary from now on (only for one session key of it when `session_pk` is set)",
  data: Type.Object({ address: Type.String(), beneficiary: Type.String(), session_pk: Type.Union([Type.String(), Type.Null()]) }),
  socket: true,
});

export const sponsorDisallowed = defineEvent({
  type: 'sponsor_disallowed',
  description: "a sponsor's pool stopped paying for a beneficiary",
  data: Type.Object({ address: Type.String(), beneficiary: Type.String() }),
  socket: true,
});
