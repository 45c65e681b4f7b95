import type { Store } from '../../kernel/sdk.js';

/**
 * The identity plugin's records (namespace `identity`), besides the removal records of
 * removed-keys.ts. Main keys themselves live in the kernel's key set (`ctx.accounts.mainKeys`).
 */

/** Guardian recovery of an owner: who may approve, how many must, and how long the owner has to cancel. */
export interface RecoveryConfig {
  readonly owner: string;
  readonly guardians: readonly string[];
  readonly threshold: number;
  /** Blocks between a request and the earliest block that may complete it. */
  readonly timelock: number;
  readonly height: number;
}

export type RecoveryStatus = 'open' | 'completed' | 'cancelled' | 'withdrawn' | 'rejected';

export interface RecoveryRequest {
  /**
   * The target's n-th request (1, 2, …): what a guardian's approval or rejection names and signs,
   * so a vote signed for one request cannot be replayed against a later one of the same target.
   */
  readonly id: number;
  readonly target: string;
  readonly requester: string;
  readonly new_key: string;
  readonly height: number;
  readonly approvals: readonly string[];
  readonly rejections: readonly string[];
  readonly status: RecoveryStatus;
  /** Block whose end completes it, once the threshold is met (`height + timelock` at the earliest). */
  readonly due_height: number | null;
  readonly closed_height: number | null;
}

export const configPath = (owner: string): string => `config/${owner}`;
export const requestPath = (target: string): string => `request/${target}`;
export const guardsPath = (guardian: string, owner: string): string => `guards/${guardian}/${owner}`;
export const guardsPrefix = (guardian: string): string => `guards/${guardian}/`;
/** How many accounts a guardian guards: `GET /api/v1/identity/guardian-of/:addr`'s total, without counting its entries. */
export const guardsCountPath = (guardian: string): string => `guards_count/${guardian}`;

/**
 * Moves an owner's guardian entries from `before` to `after`, keeping each guardian's count in
 * step (a guardian in both keeps its entry and its count).
 */
export async function replaceGuardians(s: Store, owner: string, before: readonly string[], after: readonly string[], height: number): Promise<void> {
  const kept = new Set(after);
  for (const g of before) {
    if (kept.has(g)) continue;
    s.delete(guardsPath(g, owner));
    await addToCount(s, g, -1);
  }
  const had = new Set(before);
  for (const g of after) {
    s.setRecord(guardsPath(g, owner), { height });
    if (!had.has(g)) await addToCount(s, g, 1);
  }
}

async function addToCount(s: Store, guardian: string, delta: number): Promise<void> {
  const n = ((await s.getRecord<number>(guardsCountPath(guardian))) ?? 0) + delta;
  if (n === 0) s.delete(guardsCountPath(guardian));
  else s.setRecord(guardsCountPath(guardian), n);
}
/** The derived key of an address, once it signed an identity operation (it has no record in the key set until then). */
export const derivedPath = (address: string): string => `derived/${address}`;

/**
 * Every scheduled completion, `{height, target}` sorted by height then target, under one fixed
 * key: endBlock reads that one key each block, which the committed state cache keeps (absent, on
 * most chains), instead of opening a range scan or reading a new per-height key from disk. It
 * holds only requests whose approvals met the threshold and that are not yet complete: few.
 */
export interface DueList {
  readonly entries: ReadonlyArray<{ readonly height: number; readonly target: string }>;
}
export const DUE_PATH = 'due';
