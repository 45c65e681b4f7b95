import { formatCoin } from '../../kernel/sdk.js';
import { escrowAddress, voucherDenom } from './packets.js';
import type { ChannelRecord, ClientRecord, PacketRecord } from './rules.js';

/*
 * Records as the read routes serve them (decisions.md §65, §67, §68): ucoin amounts as JSON
 * integers with `*_human` beside each, and fields only this chain's bookkeeping needs left out.
 */

export function channelView(c: ChannelRecord): Record<string, unknown> {
  return {
    channel: c.channel,
    port: c.port,
    counterparty_chain: c.counterparty_chain,
    allowed_denoms: c.allowed_denoms,
    state: c.state,
    escrow_address: escrowAddress(c.channel),
    escrow_balance: c.escrow_balance,
    escrow_balance_human: formatCoin(c.escrow_balance),
    outstanding: c.outstanding,
    outstanding_human: formatCoin(c.outstanding),
    next_sequence: c.next_sequence,
    opened_height: c.opened_height,
    updated_height: c.updated_height,
  };
}

/** A packet's `amount_human`: COIN for the native denom (or its trace coming back), else the wire denom's base units. */
export function packetView(p: PacketRecord, nativeDenom: string): Record<string, unknown> {
  const { escrowed_denom: _escrowed, amount, ...rest } = p;
  if (amount === undefined) return rest;
  const base = (p.denom ?? '').split('/').pop()!;
  const native = p.denom === nativeDenom || (p.direction === 'in' && p.credited_denom === nativeDenom);
  return { ...rest, amount, amount_human: native ? formatCoin(amount) : voucherHuman(amount, base) };
}

export function clientView(c: ClientRecord, heights: readonly number[]): Record<string, unknown> {
  let total = 0n;
  for (const v of c.validators) total += v.power;
  return {
    chain_id: c.chain_id,
    latest_height: c.latest_height,
    block_hash: c.block_hash,
    state_root: c.state_root,
    validators: c.validators,
    total_power: total,
    heights,
    created_height: c.created_height,
    updated_height: c.updated_height,
  };
}

export function denomView(d: { trace: string; base_denom: string; channel: string; supply: bigint }): Record<string, unknown> {
  return { denom: voucherDenom(d.trace), trace: d.trace, base_denom: d.base_denom, channel: d.channel, supply: d.supply, supply_human: voucherHuman(d.supply, d.base_denom) };
}

/** A voucher is not the coin: its `*_human` names the base denom it stands for, in its base units (`5000 uatom`). */
export function voucherHuman(amount: bigint, baseDenom: string): string {
  return `${amount} ${baseDenom}`;
}
