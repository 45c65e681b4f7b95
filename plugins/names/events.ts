import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

const registered = Type.Object({ address: Type.String(), name: Type.String(), owner: Type.String(), price: Type.BigInt({ minimum: 0n }), tx_hash: Type.String() });

export const nameRegistered = defineEvent({
  type: 'name_registered',
  description: 'a .human name was registered and its price burned',
  data: registered,
  socket: true,
});

export const agentRegistered = defineEvent({
  type: 'agent_registered',
  description: 'an .agent was registered and its price burned',
  data: registered,
  socket: true,
});

export const nftTransferred = defineEvent({
  type: 'nft_transferred',
  description: 'a .human name or .agent changed owner; the NFT fee was burned',
  data: Type.Object({ address: Type.String(), from: Type.String(), to: Type.String(), fee: Type.BigInt({ minimum: 0n }), tx_hash: Type.String() }),
  socket: true,
});

export const appNameRegistered = defineEvent({
  type: 'app_name_registered',
  description: 'an .app name was bound to a contract and its price burned',
  data: Type.Object({ address: Type.String(), name: Type.String(), owner: Type.String(), contract: Type.String(), price: Type.BigInt({ minimum: 0n }), tx_hash: Type.String() }),
  socket: true,
});
