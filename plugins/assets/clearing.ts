import { floorDiv } from './math.js';

/**
 * One pool's batch, cleared at one price (decisions.md §59). Pure and deterministic: the same
 * swaps in any order give the same outcome for every swap, because every quantity is a sum over
 * the batch or a function of one swap and those sums, and the `min_out` rule removes every
 * failing swap of a round at once.
 */

/** Which reserve a swap pays into: `x` (it pays `asset_x`, receives `asset_y`) or `y`. */
export type Side = 'x' | 'y';

export interface BatchSwap {
  readonly side: Side;
  readonly amountIn: bigint;
  readonly minOut: bigint;
  readonly deadlineHeight: number;
  /** Its fees at the height it executed (math.ts swapFees): net = amount_in − fee, fee = lp_fee + protocol_fee. */
  readonly net: bigint;
  readonly lpFee: bigint;
  readonly protocolFee: bigint;
}

export type Outcome =
  | { readonly status: 'filled'; readonly amountOut: bigint }
  | { readonly status: 'refunded'; readonly reason: 'deadline' | 'min_out' };

export interface Clearing {
  /** Per swap, in the order given. */
  readonly outcomes: readonly Outcome[];
  readonly reserveX: bigint;
  readonly reserveY: bigint;
  /** Protocol fees of the filled swaps, burned (§59 step 3), per asset paid. */
  readonly burnedX: bigint;
  readonly burnedY: bigint;
  /** The batch price of the last round: Y + B of `asset_y` per X + A of `asset_x` (Y and X when nothing filled). */
  readonly priceNum: bigint;
  readonly priceDen: bigint;
  readonly filled: number;
  readonly refunded: number;
}

/**
 * Clears a batch at height `height` against reserves X, Y (both ≥ 1): (1) swaps whose
 * `deadline_height` is below the height are refunded; (2) with F the rest, A and B the sums of
 * their nets paying x and y, a swap paying x gets ⌊net·(Y+B)/(X+A)⌋ of y and one paying y gets
 * ⌊net·(X+A)/(Y+B)⌋ of x; every swap of F below its `min_out` leaves F, and (2) repeats until
 * none does; (3) F fills: each reserve gains the nets and LP fees paid into it and loses the
 * outs paid from it; protocol fees are burned.
 *
 * The rounds of (2) are computed in O(n log n), not O(n²): ⌊q⌋ ≥ m ⟺ q ≥ m for an integer m, so
 * a swap paying x stays exactly when net·(Y+B) ≥ min_out·(X+A), i.e. when its threshold
 * min_out/net is at most the round's price. The swaps a round removes from one side are then the
 * most demanding ones, a prefix of that side sorted by threshold, removed while they fail against
 * the round's price (the prices of one round are computed before anything is removed, as the spec
 * removes every failing swap of a round at once). `clearing.test.ts` checks the result against a
 * literal transcription of the rule, in every order.
 *
 * Neither reserve reaches 0: the outs paid from Y total at most A·(Y+B)/(X+A), so Y after is at
 * least (Y+B)·X/(X+A) > 0 (and likewise for X), an integer above 0.
 */
export function clearBatch(height: number, reserveX: bigint, reserveY: bigint, swaps: readonly BatchSwap[]): Clearing {
  if (reserveX < 1n || reserveY < 1n) throw new RangeError(`a pool's reserves are at least 1: ${reserveX}, ${reserveY}`);
  const outcomes: Array<Outcome | undefined> = swaps.map((s) => (s.deadlineHeight < height ? { status: 'refunded', reason: 'deadline' } : undefined));
  const xs: number[] = [];
  const ys: number[] = [];
  let a = 0n;
  let b = 0n;
  swaps.forEach((s, i) => {
    if (outcomes[i] !== undefined) return;
    if (s.side === 'x') {
      xs.push(i);
      a += s.net;
    } else {
      ys.push(i);
      b += s.net;
    }
  });
  const byThreshold = (i: number, j: number): number => demandingFirst(swaps[i]!, swaps[j]!);
  xs.sort(byThreshold);
  ys.sort(byThreshold);
  let px = 0;
  let py = 0;
  let num: bigint;
  let den: bigint;
  for (;;) {
    num = reserveY + b;
    den = reserveX + a;
    let removed = false;
    // A swap paying x fails when net·num < min_out·den; one paying y when net·den < min_out·num.
    while (px < xs.length && swaps[xs[px]!]!.net * num < swaps[xs[px]!]!.minOut * den) {
      outcomes[xs[px]!] = { status: 'refunded', reason: 'min_out' };
      a -= swaps[xs[px]!]!.net;
      px++;
      removed = true;
    }
    while (py < ys.length && swaps[ys[py]!]!.net * den < swaps[ys[py]!]!.minOut * num) {
      outcomes[ys[py]!] = { status: 'refunded', reason: 'min_out' };
      b -= swaps[ys[py]!]!.net;
      py++;
      removed = true;
    }
    if (!removed) break;
  }
  let x = reserveX;
  let y = reserveY;
  let burnedX = 0n;
  let burnedY = 0n;
  let filled = 0;
  for (const i of xs.slice(px)) {
    const s = swaps[i]!;
    const out = floorDiv(s.net * num, den);
    outcomes[i] = { status: 'filled', amountOut: out };
    x += s.net + s.lpFee;
    y -= out;
    burnedX += s.protocolFee;
    filled++;
  }
  for (const i of ys.slice(py)) {
    const s = swaps[i]!;
    const out = floorDiv(s.net * den, num);
    outcomes[i] = { status: 'filled', amountOut: out };
    y += s.net + s.lpFee;
    x -= out;
    burnedY += s.protocolFee;
    filled++;
  }
  if (x < 1n || y < 1n) throw new Error(`clearing left a reserve at ${x}, ${y}: the rounding argument above is broken`);
  return { outcomes: outcomes as Outcome[], reserveX: x, reserveY: y, burnedX, burnedY, priceNum: num, priceDen: den, filled, refunded: swaps.length - filled };
}

/**
 * Orders swaps by the price they need, most demanding first: min_out/net descending, compared by
 * cross-multiplication. A swap with net 0 and min_out > 0 can never fill (first); net 0 and
 * min_out 0 asks nothing (as 0/1).
 */
function demandingFirst(s: BatchSwap, t: BatchSwap): number {
  const never = (u: BatchSwap): boolean => u.net === 0n && u.minOut > 0n;
  if (never(s) || never(t)) return never(s) === never(t) ? 0 : never(s) ? -1 : 1;
  const sn = s.net === 0n ? 1n : s.net;
  const tn = t.net === 0n ? 1n : t.net;
  const lhs = s.minOut * tn;
  const rhs = t.minOut * sn;
  return lhs > rhs ? -1 : lhs < rhs ? 1 : 0;
}
