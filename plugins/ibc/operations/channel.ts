import { badRequest, conflict, defineOperation, isChainError, type ChainError } from '../../../kernel/sdk.js';
import { ChannelOpenBody, ChannelPauseBody } from '../schemas.js';
import { channels } from '../store.js';
import { channelOf, operatorProblem, readSettings } from '../rules.js';
import { ibcChannel } from '../events.js';
import { IBC_SIGNING, IBC_TARGET } from './common.js';

const CHANNEL_RE = /^[a-z0-9-]{1,32}$/;
const CHAIN_RE = /^[a-z0-9-]{1,64}$/;
const BASE_DENOM_RE = /^[a-zA-Z][a-zA-Z0-9]{0,63}$/;

/** What is wrong with a channel opening's fields by themselves (§67), whatever the state. */
function openFormProblem(body: { channel: string; port: string; counterparty_chain: string; allowed_denoms: readonly string[] }): ChainError | undefined {
  const { channel, port, counterparty_chain, allowed_denoms } = body;
  if (!CHANNEL_RE.test(channel)) return badRequest(`channel ${JSON.stringify(channel)} must be 1-32 of a-z, 0-9, -`);
  if (port !== 'transfer' && port !== 'attest') return badRequest(`port must be transfer or attest, not ${JSON.stringify(port)}`);
  if (!CHAIN_RE.test(counterparty_chain)) return badRequest('counterparty_chain must be a chain id: 1-64 of a-z, 0-9, -');
  if (port === 'transfer') {
    if (allowed_denoms.length < 1 || allowed_denoms.length > 16) return badRequest('allowed_denoms of a transfer channel lists 1 to 16 base denoms');
    const bad = allowed_denoms.find((d) => !BASE_DENOM_RE.test(d));
    if (bad !== undefined) return badRequest(`allowed_denoms: ${JSON.stringify(bad)} is not a base denom (a letter, then up to 63 letters or digits)`);
    if (new Set(allowed_denoms).size !== allowed_denoms.length) return badRequest('allowed_denoms lists a denom twice');
  } else if (allowed_denoms.length !== 0) {
    return badRequest('allowed_denoms of an attest channel must be []');
  }
  return undefined;
}

/** decisions.md §67: an operator opens a channel; the counterparty opens the same id. */
export const channelOpen = defineOperation({
  name: 'ibc_channel_open',
  description: 'opens an IBC channel (operator): its port, counterparty chain and allowed base denoms',
  routes: [{ method: 'POST', path: '/api/v1/ibc/channel/open' }],
  schema: ChannelOpenBody,
  signsFor: IBC_TARGET,
  value: null,
  gas: 50,
  signing: IBC_SIGNING,
  async check(ctx, op) {
    // decisions.md §92: a malformed body is 400 whoever sends it, so its form is judged before the role.
    const malformed = openFormProblem(op.body);
    if (malformed) return malformed;
    const role = await operatorProblem(ctx, op);
    if (role) return role;
    const { channel, counterparty_chain } = op.body;
    if (counterparty_chain === (await readSettings(ctx.store)).chain_id) return badRequest(`counterparty_chain ${counterparty_chain} is this chain's own id`);
    if (await channels.has(ctx.store, channel)) return conflict(`channel ${channel} is already open`);
    return undefined;
  },
  async execute(ctx, op) {
    const { channel, port, counterparty_chain, allowed_denoms } = op.body;
    const p = port === 'attest' ? 'attest' : 'transfer';
    channels.set(ctx.store, channel, { channel, port: p, counterparty_chain, allowed_denoms: [...allowed_denoms], state: 'open', escrow_balance: 0n, outstanding: 0n, next_sequence: 1, opened_height: ctx.block.height, updated_height: ctx.block.height });
    ibcChannel.emit(ctx, { channel, port: p, counterparty_chain, state: 'open', tx_hash: op.txHash });
  },
});

/** §67: pause or resume; a paused channel still accepts ack and timeout. */
export const channelPause = defineOperation({
  name: 'ibc_channel_pause',
  description: 'pauses or resumes an IBC channel (operator)',
  routes: [{ method: 'POST', path: '/api/v1/ibc/channel/pause' }],
  schema: ChannelPauseBody,
  signsFor: IBC_TARGET,
  value: null,
  gas: 30,
  signing: IBC_SIGNING,
  async check(ctx, op) {
    const role = await operatorProblem(ctx, op);
    if (role) return role;
    const ch = await channelOf(ctx.store, op.body.channel);
    return isChainError(ch) ? ch : undefined;
  },
  async execute(ctx, op) {
    const ch = await channelOf(ctx.store, op.body.channel);
    if (isChainError(ch)) throw ch;
    const state = op.body.paused ? 'paused' : 'open';
    channels.set(ctx.store, ch.channel, { ...ch, state, updated_height: ctx.block.height });
    ibcChannel.emit(ctx, { channel: ch.channel, port: ch.port, counterparty_chain: ch.counterparty_chain, state, tx_hash: op.txHash });
  },
});
