import { Type } from '@sinclair/typebox';
import { defineStore, keyPart, type ReadonlyStore } from '../../kernel/sdk.js';

/** A transfer the policy layer holds, under `held/<tx hash>`; its coins left the sender and wait here. */
export interface HeldTransfer {
  readonly tx_hash: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly score_bp: bigint;
  readonly category: string;
  /** Released only by the owner's confirmation (else refunded at `expiry_height`). */
  readonly needs_owner: boolean;
  /** Why: `score` (hold threshold), `stepup` (step-up threshold), `agent` (a session key at or above the agent threshold). */
  readonly reason: 'score' | 'stepup' | 'agent';
  readonly held_height: number;
  /** Automatic release height (`needs_owner` false), else null. */
  readonly release_height: number | null;
  /** Refund height (`needs_owner` true), else null. */
  readonly expiry_height: number | null;
  readonly status: HeldStatus;
  readonly resolved_height: number | null;
}
export type HeldStatus = 'held' | 'released' | 'cancelled' | 'refunded';

/** A recipient on an owner's trust list, under `trust/<owner>/<recipient>` (decisions.md §34, §37). */
export interface TrustEntry {
  readonly recipient: string;
  readonly added_height: number;
  readonly active_from: number;
}

/** Heights of an address's latest plain transfers (at most 10), under `recent/<address>`: the `tx_count_last_10` feature. */
export interface RecentTransfers {
  readonly heights: readonly number[];
}

/** The model registered at genesis, under `model`: the hash the node's weights file must have. */
export interface RegisteredModel {
  readonly name: string;
  readonly version: string;
  readonly weights_hash: string;
  readonly height: number;
}

/** Most recipients one owner may trust (a bound on the list's scan). */
export const MAX_TRUSTED = 256;
/** Window of the `tx_count_last_10` feature, in blocks. */
export const RECENT_WINDOW = 10;

const Height = Type.Integer({ minimum: 0 });
const NullableHeight = Type.Union([Height, Type.Null()]);

export const heldTransfers = defineStore('sentinel', {
  name: 'held',
  description: 'a transfer the policy layer held (its coins left the sender and wait here), and how it ended',
  key: ['held', keyPart.hash('tx_hash')],
  value: Type.Object({
    tx_hash: Type.String(),
    from: Type.String(),
    to: Type.String(),
    value: Type.BigInt({ minimum: 0n }),
    score_bp: Type.BigInt({ minimum: 0n }),
    category: Type.String(),
    needs_owner: Type.Boolean(),
    reason: Type.Union([Type.Literal('score'), Type.Literal('stepup'), Type.Literal('agent')]),
    held_height: Height,
    release_height: NullableHeight,
    expiry_height: NullableHeight,
    status: Type.Union([Type.Literal('held'), Type.Literal('released'), Type.Literal('cancelled'), Type.Literal('refunded')]),
    resolved_height: NullableHeight,
  }),
});

/** A marker's value: the records that list held transfers store 1 (the key is the information). */
const Marker = Type.BigInt({ minimum: 1n, maximum: 1n });

export const holdsByAddress = defineStore('sentinel', {
  name: 'byaddr',
  description: "an open hold of an address, as sender or recipient (a marker, 1; removed when the hold ends)",
  key: ['byaddr', keyPart.address('address'), keyPart.hash('tx_hash')],
  value: Marker,
});

export const holdsDue = defineStore('sentinel', {
  name: 'due',
  description: 'a hold falling due (released or refunded) at the end of a height (a marker, 1; endBlock reads exactly its height)',
  key: ['due', keyPart.integer('height'), keyPart.hash('tx_hash')],
  value: Marker,
});

export const trustList = defineStore('sentinel', {
  name: 'trust',
  description: "a recipient on an owner's trust list and the height from which it counts (decisions.md §34, §37)",
  key: ['trust', keyPart.address('owner'), keyPart.address('recipient')],
  value: Type.Object({ recipient: Type.String(), added_height: Height, active_from: Height }),
});

export const recentTransfers = defineStore('sentinel', {
  name: 'recent',
  description: "heights of an address's latest transfers (at most 10): the scorer's tx_count_last_10",
  key: ['recent', keyPart.address('address')],
  value: Type.Object({ heights: Type.Array(Height) }),
  // Read for every plain transfer's sender, at admission and in the block: fetched with the accounts.
  readAhead: ['sender'],
});

export const registeredModel = defineStore('sentinel', {
  name: 'model',
  description: 'the model registered at genesis: the weights hash every node must score with',
  key: ['model'],
  value: Type.Object({ name: Type.String(), version: Type.String(), weights_hash: Type.String(), height: Height }),
});

export const SENTINEL_STORES = [heldTransfers, holdsByAddress, holdsDue, trustList, recentTransfers, registeredModel];

/** Heights of the transfers of `address` in the window ending at `height` (this block's earlier ones included). */
export async function recentHeights(store: ReadonlyStore, address: string, height: number): Promise<number[]> {
  const r = await recentTransfers.get(store, address);
  return r ? r.heights.filter((h) => h > height - RECENT_WINDOW) : [];
}

/** The window after a transfer at `height`: its heights then this one, the latest RECENT_WINDOW kept (what `recent/<address>` stores). */
export function appendRecent(recent: readonly number[], height: number): number[] {
  return [...recent, height].slice(-RECENT_WINDOW);
}

/** Whether `recipient` counts as trusted by `owner` at `height`. */
export async function isTrusted(store: ReadonlyStore, owner: string, recipient: string, height: number): Promise<boolean> {
  const t = await trustList.get(store, owner, recipient);
  return t !== undefined && t.active_from <= height;
}
