import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

/**
 * Part 2's `faucet` event, emitted when the credit is applied in a block (so a credit that fails
 * there announces nothing) and relayed by the gateway from the block's events. The amount is a
 * bigint, served as a JSON integer like every amount on the wire.
 */
export const faucetCredited = defineEvent({
  type: 'faucet',
  description: 'the faucet credited an address (the credit was applied in a committed block)',
  data: Type.Object({ address: Type.String(), amount: Type.BigInt({ minimum: 1n }), tx_hash: Type.String() }),
  socket: true,
});
