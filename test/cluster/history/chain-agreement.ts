import type { CheckFailure } from './check-failure.js';

/** One block as a validator serves it. */
export interface BlockView {
  readonly height: number;
  readonly hash: string;
  readonly stateRoot: string;
}

/**
 * No fork: every validator that has a height has the same block hash and state root there.
 * Reports the first height where any two differ, with every validator's view of it.
 */
export function checkSameChain(views: ReadonlyMap<string, readonly BlockView[]>): CheckFailure[] {
  const byHeight = new Map<number, Array<[string, BlockView]>>();
  for (const [validator, blocks] of views) for (const b of blocks) byHeight.set(b.height, [...(byHeight.get(b.height) ?? []), [validator, b]]);
  for (const height of [...byHeight.keys()].sort((a, b) => a - b)) {
    const seen = byHeight.get(height)!;
    const [, first] = seen[0]!;
    if (seen.every(([, b]) => b.hash === first.hash && b.stateRoot === first.stateRoot)) continue;
    const what = seen.every(([, b]) => b.hash === first.hash) ? 'state roots differ under one block hash' : 'block hashes differ';
    return [{ check: 'one chain on every validator', message: `first divergence at height ${height}: ${what}`, window: seen.map(([v, b]) => `${v}: hash ${b.hash} root ${b.stateRoot}`) }];
  }
  return [];
}
