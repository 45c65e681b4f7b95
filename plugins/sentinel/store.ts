import type { ReadonlyStore } from '../../kernel/sdk.js';

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

export const heldPath = (hash: string): string => `held/${hash}`;
/** Markers listing an address's open holds (as sender and as recipient). */
export const byAddressPrefix = (address: string): string => `byaddr/${address}/`;
export const byAddressPath = (address: string, hash: string): string => `${byAddressPrefix(address)}${hash}`;
/** Markers of what falls due at a height (release or refund), scanned by endBlock at exactly that height. */
export const duePrefix = (height: number): string => `due/${String(height).padStart(12, '0')}/`;
export const duePath = (height: number, hash: string): string => `${duePrefix(height)}${hash}`;
export const trustPrefix = (owner: string): string => `trust/${owner}/`;
export const trustPath = (owner: string, recipient: string): string => `${trustPrefix(owner)}${recipient}`;
export const recentPath = (address: string): string => `recent/${address}`;
export const MODEL_PATH = 'model';

/** Most recipients one owner may trust (a bound on the list's scan). */
export const MAX_TRUSTED = 256;
/** Window of the `tx_count_last_10` feature, in blocks. */
export const RECENT_WINDOW = 10;

/** Heights of the transfers of `address` in the window ending at `height` (this block's earlier ones included). */
export async function recentHeights(store: ReadonlyStore, address: string, height: number): Promise<number[]> {
  const r = await store.getRecord<RecentTransfers>(recentPath(address));
  return r ? r.heights.filter((h) => h > height - RECENT_WINDOW) : [];
}

/** Whether `recipient` counts as trusted by `owner` at `height`. */
export async function isTrusted(store: ReadonlyStore, owner: string, recipient: string, height: number): Promise<boolean> {
  const t = await store.getRecord<TrustEntry>(trustPath(owner, recipient));
  return t !== undefined && t.active_from <= height;
}
