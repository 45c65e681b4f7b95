import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

const Gas = Type.Integer({ minimum: 0, description: 'gas the deploy or call was charged' });
const ReturnData = Type.String({ description: 'what the contract set with set_return, as UTF-8 text (the transaction view\'s return_data, decisions.md §36)' });

export const contractDeployed = defineEvent({
  type: 'contract_deployed',
  description: 'a contract was created',
  data: Type.Object({ address: Type.String(), owner: Type.String(), code_hash: Type.String(), tx_hash: Type.String(), gas_used: Gas, return_data: ReturnData }),
  socket: true,
});

export const contractCalled = defineEvent({
  type: 'contract_called',
  description: 'a contract call succeeded',
  data: Type.Object({
    contract: Type.String(),
    caller: Type.String(),
    function: Type.Union([Type.String(), Type.Null()], { description: 'the function the data named, null for raw input' }),
    value: Type.String({ description: 'ucoin attached, as decimal text' }),
    gas_used: Gas,
    return_data: ReturnData,
  }),
  socket: true,
});

export const contractEvent = defineEvent({
  type: 'contract_event',
  description: 'an event a contract emitted (emit_event)',
  data: Type.Object({ contract: Type.String(), event: Type.String(), data: Type.Unknown({ description: "the event's JSON when it is integers-only and at most 32 deep, else its text" }) }),
  socket: true,
});

/** decisions.md §51: a deploy named a template; its transaction view carries `template_fee` and `template_fee_human` from here. */
export const templateFeePaid = defineEvent({
  type: 'template_fee_paid',
  description: "a deploy named a template and paid its fee to the author's owner (0 for a shipped template)",
  data: Type.Object({
    template: Type.String(),
    contract: Type.String(),
    payer: Type.String(),
    payee: Type.Union([Type.String(), Type.Null()], { description: "the author's owner; null for a shipped template" }),
    template_fee: Type.BigInt({ minimum: 0n, description: 'ucoin' }),
    template_fee_human: Type.String(),
  }),
});

export const CONTRACTS_EVENTS = [contractDeployed, contractCalled, contractEvent, templateFeePaid];
