import type { OperationRegistry } from '../ops/registry.js';
import { describeOperation } from '../ops/describe.js';
import { formatCoin } from '../codec/amount.js';
import { addressKind } from '../crypto/address.js';
import type { PluginHost } from '../host/host.js';
import type { AccountRecord } from '../state/accounts.js';
import type { AddressTotals } from '../store/chain-store.js';
import type { ValidatorActivity } from '../store/validator-activity.js';
import type { Validator } from '../consensus/types.js';
import type { BlockEvent, BlockRecord, Receipt, TxStatus } from '../model/types.js';
import type { TxFields } from '../tx/record.js';

/**
 * The wire shapes of part 1 "Resources and their fields". Amounts stay bigint here and are
 * written as JSON integers by the codec; every amount gets its `*_human` string beside it.
 */
export function blockView(b: BlockRecord): Record<string, unknown> {
  const h = b.header;
  return {
    height: h.height,
    hash: b.hash,
    parent_hash: h.parent_hash,
    proposer: h.proposer,
    tx_root: h.tx_root,
    state_root: b.state_root,
    prev_state_root: h.prev_state_root,
    tx_count: h.tx_count,
    gas_used: b.gas_used,
    base_fee: h.base_fee,
    fees_burned: b.fees_burned,
    fees_burned_human: formatCoin(b.fees_burned),
    shard: h.shard,
    round: h.round,
    timestamp: h.timestamp,
    chain_id: h.chain_id,
    validators_hash: h.validators_hash,
    next_validators_hash: h.next_validators_hash,
    evidence_count: b.evidence?.length ?? 0,
    evidence: (b.evidence ?? []).map((e) => ({ hash: e.hash, kind: e.kind, validator: e.validator, height: e.height, round: e.round })),
  };
}

/** An event of a committed block: where it came from, then what its plugin emitted. */
export function eventView(e: BlockEvent): Record<string, unknown> {
  return { height: e.height, index: e.index, tx_hash: e.tx_hash, phase: e.phase, type: e.type, data: e.data };
}

export interface TxViewInput {
  tx: TxFields;
  receipt: Receipt | undefined;
  /** Timestamp of the block that included it (committed transactions). */
  blockTimestamp: number | undefined;
  gas: number;
  /** The shard whose chain holds it: this node's (decisions.md §71). */
  shard: number;
  /** Its `type` (decisions.md §17), as Chain.typeOf names it. */
  type: string;
}

export function txView(i: TxViewInput): Record<string, unknown> {
  const { tx, receipt } = i;
  const status: TxStatus = receipt ? receipt.status : 'pending';
  const gas = receipt ? receipt.gas : i.gas;
  const fee = receipt ? receipt.fee : BigInt(gas) * tx.gasPrice;
  return {
    hash: tx.hash,
    type: i.type,
    status,
    from: tx.from,
    to: tx.to,
    value: tx.value,
    value_human: formatCoin(tx.value),
    nonce: tx.nonce,
    gas,
    gas_price: tx.gasPrice,
    fee,
    fee_human: formatCoin(fee),
    // Burned for a declared gas limit left unused (docs/architecture.md, "Unused gas"): charged on top of `fee`.
    ...(receipt?.unused_gas_fee !== undefined ? { unused_gas_fee: receipt.unused_gas_fee, unused_gas_fee_human: formatCoin(receipt.unused_gas_fee) } : {}),
    // The storage fee for state growth beyond the free allowance (chain/state-growth.ts): burned on top of `fee`.
    ...(receipt?.storage_fee !== undefined ? { storage_fee: receipt.storage_fee, storage_fee_human: formatCoin(receipt.storage_fee) } : {}),
    shard: i.shard,
    timestamp: i.blockTimestamp ?? tx.receivedAt,
    block: receipt ? receipt.block : null,
    index: receipt ? receipt.index : null,
    error: receipt ? receipt.error : null,
    ...(tx.data !== undefined ? { data: tx.data } : {}),
    ...(tx.sigVersion ? { signature_version: tx.sigVersion } : {}),
  };
}

/** `shard`: the shard that owns `address` (decisions.md §71). */
export function accountView(address: string, a: AccountRecord, nextNonce: bigint, shard: number, customAddress = ''): Record<string, unknown> {
  const kind = addressKind(address);
  return {
    address,
    type: kind ?? 'unknown',
    balance: a.balance,
    balance_human: formatCoin(a.balance),
    nonce: a.nonce,
    next_nonce: nextNonce,
    tx_count: a.tx_count,
    shard,
    is_contract: kind === 'app',
    // A key is proven for the address once one is bound on chain or a signed transaction confirmed.
    verified: a.public_key !== undefined || a.nonce > 0n,
    // decisions.md §39: the `.human` name the account has owned longest (the names plugin answers).
    custom_address: customAddress,
  };
}

export function totalsView(address: string, t: AddressTotals): Record<string, unknown> {
  return {
    address,
    sent: t.sent,
    sent_human: formatCoin(t.sent),
    received: t.received,
    received_human: formatCoin(t.received),
    fees_paid: t.fees,
    fees_paid_human: formatCoin(t.fees),
    sent_count: t.sent_count,
    received_count: t.received_count,
  };
}

/**
 * A validator of the active set (part 1, Validator): `stake` is its self-stake in ucoin, which is
 * its voting power (part 1, Consensus 2); the activity figures are this node's count
 * (`store/validator-activity.ts`). `trust_score` is the share of the last `windowBlocks` committed
 * blocks whose certificate carries its precommit, to four decimals.
 */
export function validatorView(v: Validator, a: ValidatorActivity, windowBlocks: number): Record<string, unknown> {
  return {
    address: v.address,
    public_key: v.public_key,
    power: v.power,
    stake: v.power,
    stake_human: formatCoin(v.power),
    // A share: clamped to [0, 1] so no read overlapping a commit can ever show more than all.
    trust_score: windowBlocks === 0 ? 0 : Math.min(1, Math.max(0, Math.round((a.window_votes * 10_000) / windowBlocks) / 10_000)),
    blocks_proposed: a.blocks_proposed,
    votes_cast: a.votes_cast,
    last_active: a.last_active,
  };
}

/**
 * `GET /api/v1/plugins` (decisions.md §26, §37): every plugin this node has, with its state at
 * `height`, and the operations it declares as clients build and sign them (ops/describe.ts).
 */
export function pluginsView(host: PluginHost<unknown>, height: number, operations: OperationRegistry): Array<Record<string, unknown>> {
  const ops = operations.list();
  const entries = new Map(host.scheduleEntries().map((e) => [e.name, e]));
  return host.enabled().map((l) => {
    const e = entries.get(l.def.name);
    return {
      name: l.def.name,
      kind: l.def.kind,
      description: l.def.description,
      status: host.stateOf(l.def.name, height),
      activation_height: l.def.kind === 'service' ? null : (e?.activation_height ?? null),
      retire_height: l.def.kind === 'service' ? null : (e?.retire_height ?? null),
      operations: ops.filter((o) => o.plugin === l.def.name).map(describeOperation),
    };
  });
}
