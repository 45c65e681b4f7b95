import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

export const vaultCreated = defineEvent({
  type: 'vault_created',
  description: 'a vault was registered (its price burned), its creator the only member, threshold 1',
  data: Type.Object({ address: Type.String(), creator: Type.String(), price: Type.BigInt({ minimum: 0n }), tx_hash: Type.String() }),
  socket: true,
});

const proposalRef = { vault: Type.String(), proposal_id: Type.Integer({ minimum: 1 }), tx_hash: Type.String() };

export const proposalCreated = defineEvent({
  type: 'vault_proposal_created',
  description: 'a member proposed a payout, a member change or a new threshold (counting as its signature)',
  data: Type.Object({ ...proposalRef, kind: Type.String(), proposer: Type.String() }),
  socket: true,
});

export const proposalSigned = defineEvent({
  type: 'vault_proposal_signed',
  description: 'a member signed an open proposal',
  data: Type.Object({ ...proposalRef, signer: Type.String(), signatures: Type.Integer({ minimum: 1 }) }),
  socket: true,
});

export const proposalExecuted = defineEvent({
  type: 'vault_proposal_executed',
  description: 'a proposal reached the threshold and was applied in the same transaction',
  data: Type.Object({ ...proposalRef, kind: Type.String(), to: Type.String(), amount: Type.BigInt({ minimum: 0n }) }),
  socket: true,
});

export const proposalCancelled = defineEvent({
  type: 'vault_proposal_cancelled',
  description: 'an open proposal was cancelled because another membership or threshold change executed',
  data: Type.Object({ ...proposalRef, by_proposal: Type.Integer({ minimum: 1 }) }),
  socket: true,
});

export const proposalExpired = defineEvent({
  type: 'vault_proposal_expired',
  description: 'an open proposal reached its expires_height unexecuted',
  data: Type.Object({ vault: Type.String(), proposal_id: Type.Integer({ minimum: 1 }) }),
  socket: true,
});
