import { Type, type Static } from '@sinclair/typebox';
import { defineStore, keyPart, sha3Hex0x, type Store } from '../../kernel/sdk.js';

/**
 * The identity plugin's state layout (namespace `identity`). Main keys themselves live in the
 * kernel's key set (`ctx.accounts.mainKeys`); the plugin keeps recovery, the guardian index, the
 * derived key it learnt, and the removal records other plugins ask about (`removedSince`, public.ts).
 */

/** Guardian recovery of an owner: who may approve, how many must, and how long the owner has to cancel. */
const RecoveryConfigSchema = Type.Object({
  owner: Type.String(),
  guardians: Type.Array(Type.String()),
  threshold: Type.Integer({ minimum: 1 }),
  /** Blocks between a request and the earliest block that may complete it. */
  timelock: Type.Integer({ minimum: 1 }),
  height: Type.Integer({ minimum: 0 }),
});
export type RecoveryConfig = Static<typeof RecoveryConfigSchema>;

export const RecoveryStatusSchema = Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('cancelled'), Type.Literal('withdrawn'), Type.Literal('rejected')]);
export type RecoveryStatus = Static<typeof RecoveryStatusSchema>;

export const RecoveryRequestSchema = Type.Object({
  /**
   * The target's n-th request (1, 2, …): what a guardian's approval or rejection names and signs,
   * so a vote signed for one request cannot be replayed against a later one of the same target.
   */
  id: Type.Integer({ minimum: 1 }),
  target: Type.String(),
  requester: Type.String(),
  new_key: Type.String(),
  height: Type.Integer({ minimum: 0 }),
  approvals: Type.Array(Type.String()),
  rejections: Type.Array(Type.String()),
  status: RecoveryStatusSchema,
  /** Block whose end completes it, once the threshold is met (`height + timelock` at the earliest). */
  due_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  closed_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});
export type RecoveryRequest = Static<typeof RecoveryRequestSchema>;

/** A height from which something stopped counting (a guardian entry's, a removal's). */
const AtHeight = Type.Object({ height: Type.Integer({ minimum: 0 }) });

/** Short, fixed-length id of a public key for state keys (a key's hex is 3 904 characters). */
export function keyId(publicKeyHex: string): string {
  return sha3Hex0x(publicKeyHex).slice(2, 34);
}

export const configs = defineStore('identity', {
  name: 'configs',
  description: "an owner's guardian recovery: guardians, threshold, timelock (blocks), the height it was set",
  key: ['config', keyPart.address('owner')],
  value: RecoveryConfigSchema,
});

export const requests = defineStore('identity', {
  name: 'requests',
  description: "the target's latest recovery request, open or closed (numbered by `id`, kept after it closes)",
  key: ['request', keyPart.address('target')],
  value: RecoveryRequestSchema,
});

export const guards = defineStore('identity', {
  name: 'guards',
  description: 'an owner the guardian guards, from the height of the setup that named it',
  key: ['guards', keyPart.address('guardian'), keyPart.address('owner')],
  value: AtHeight,
});

export const guardsCounts = defineStore('identity', {
  name: 'guardsCounts',
  description: 'how many owners the guardian guards (the guardian-of route\'s total, without counting entries); absent for none',
  key: ['guards_count', keyPart.address('guardian')],
  value: Type.Integer({ minimum: 1 }),
});

export const derivedKeys = defineStore('identity', {
  name: 'derivedKeys',
  description: 'the key an address derives from, once it signed an identity operation with it (the key set has no record of it until then)',
  key: ['derived', keyPart.address('address')],
  value: Type.Object({ key: Type.String() }),
});

export const removedKeys = defineStore('identity', {
  name: 'removedKeys',
  description: 'a main key a rotation removed, from the height of that block: what it granted ends (the session plugin asks)',
  key: ['removed', keyPart.address('account'), keyPart.hex('key_id', { length: 32 })],
  value: AtHeight,
});

export const resets = defineStore('identity', {
  name: 'resets',
  description: 'the height of the latest completed recovery of the account: every key it had before stopped counting',
  key: ['reset', keyPart.address('account')],
  value: AtHeight,
});

/**
 * Every scheduled completion, `{height, target}` sorted by height then target, under one fixed
 * key: endBlock reads that one key each block, which the committed state cache keeps (absent, on
 * most chains), instead of opening a range scan or reading a new per-height key from disk. It
 * holds only requests whose approvals met the threshold and that are not yet complete: few.
 */
export const dueList = defineStore('identity', {
  name: 'dueList',
  description: 'the recoveries due to complete, `{height, target}` by height then target, under one key that endBlock reads each block; absent when none',
  key: ['due'],
  value: Type.Object({ entries: Type.Array(Type.Object({ height: Type.Integer({ minimum: 0 }), target: Type.String() })) }),
});
export type DueEntry = Static<typeof dueList.value>['entries'][number];

export const IDENTITY_STORES = [configs, requests, guards, guardsCounts, derivedKeys, removedKeys, resets, dueList];

/**
 * Moves an owner's guardian entries from `before` to `after`, keeping each guardian's count in
 * step (a guardian in both keeps its entry and its count).
 */
export async function replaceGuardians(s: Store, owner: string, before: readonly string[], after: readonly string[], height: number): Promise<void> {
  const kept = new Set(after);
  for (const g of before) {
    if (kept.has(g)) continue;
    guards.delete(s, g, owner);
    await addToCount(s, g, -1);
  }
  const had = new Set(before);
  for (const g of after) {
    guards.set(s, g, owner, { height });
    if (!had.has(g)) await addToCount(s, g, 1);
  }
}

async function addToCount(s: Store, guardian: string, delta: number): Promise<void> {
  const n = ((await guardsCounts.get(s, guardian)) ?? 0) + delta;
  if (n === 0) guardsCounts.delete(s, guardian);
  else guardsCounts.set(s, guardian, n);
}
