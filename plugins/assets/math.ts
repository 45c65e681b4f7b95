/**
 * The exchange's arithmetic (decisions.md §58–60): integers only, every `floor`, `ceil` and `√` of
 * the exact value. Operands are amounts of at most 2^53 − 1 (§55) and basis points of at most
 * 10 000, so every product below stays under 2^128: the intermediates the spec allows. Pure and
 * deterministic: consensus code, the quote route and the tests share it.
 */

/** The largest amount, supply, reserve or share count (§55): 2^53 − 1. */
export const MAX_AMOUNT = 9_007_199_254_740_991n;
/** The denominator of a fee in basis points. */
export const BPS = 10_000n;

/** floor(a / b) for a ≥ 0, b > 0. */
export function floorDiv(a: bigint, b: bigint): bigint {
  if (b <= 0n) throw new RangeError(`division by ${b}`);
  if (a < 0n) throw new RangeError(`floorDiv of a negative dividend ${a}`);
  return a / b;
}

/** ceil(a / b) for a ≥ 0, b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  if (b <= 0n) throw new RangeError(`division by ${b}`);
  if (a < 0n) throw new RangeError(`ceilDiv of a negative dividend ${a}`);
  return (a + b - 1n) / b;
}

/** floor(√n) for n ≥ 0, by Newton's iteration on integers (no floating point anywhere). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError(`isqrt of a negative number ${n}`);
  if (n < 2n) return n;
  // A start above the root: 2^ceil(bits/2). Newton's step then decreases monotonically to the floor.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** A swap's fees (§59): fee = ceil(a·(lp + pr)/10 000), protocol = floor(a·pr/10 000), lp = fee − protocol, net = a − fee. */
export interface SwapFees {
  readonly fee: bigint;
  readonly protocolFee: bigint;
  readonly lpFee: bigint;
  readonly net: bigint;
}

export function swapFees(amountIn: bigint, lpBps: bigint, protocolBps: bigint): SwapFees {
  if (amountIn < 0n || lpBps < 0n || protocolBps < 0n || lpBps + protocolBps > BPS) throw new RangeError(`swap fees of ${amountIn} at ${lpBps} + ${protocolBps} bps`);
  const fee = ceilDiv(amountIn * (lpBps + protocolBps), BPS);
  const protocolFee = floorDiv(amountIn * protocolBps, BPS);
  return { fee, protocolFee, lpFee: fee - protocolFee, net: amountIn - fee };
}

/** The shares a new pool mints (§58): floor(√(x·y)). */
export function initialShares(amountX: bigint, amountY: bigint): bigint {
  return isqrt(amountX * amountY);
}

/** What `add_liquidity` takes and mints (§58): s = min(⌊max_a·T/X⌋, ⌊max_b·T/Y⌋), a = ⌈s·X/T⌉, b = ⌈s·Y/T⌉. */
export interface LiquidityAdd {
  readonly shares: bigint;
  readonly amountX: bigint;
  readonly amountY: bigint;
}

export function liquidityToAdd(maxA: bigint, maxB: bigint, reserveX: bigint, reserveY: bigint, totalShares: bigint): LiquidityAdd {
  const byX = floorDiv(maxA * totalShares, reserveX);
  const byY = floorDiv(maxB * totalShares, reserveY);
  const shares = byX < byY ? byX : byY;
  return { shares, amountX: ceilDiv(shares * reserveX, totalShares), amountY: ceilDiv(shares * reserveY, totalShares) };
}

/** What `remove_liquidity` pays (§58): ⌊shares·X/T⌋ and ⌊shares·Y/T⌋. */
export function liquidityToRemove(shares: bigint, reserveX: bigint, reserveY: bigint, totalShares: bigint): { readonly amountX: bigint; readonly amountY: bigint } {
  return { amountX: floorDiv(shares * reserveX, totalShares), amountY: floorDiv(shares * reserveY, totalShares) };
}

/** A swap alone against committed reserves (§60): out = ⌊net·R_out/(R_in + net)⌋, impact against ideal = ⌊net·R_out/R_in⌋. */
export function quoteAlone(net: bigint, reserveIn: bigint, reserveOut: bigint): { readonly amountOut: bigint; readonly priceImpactBps: bigint } {
  const amountOut = floorDiv(net * reserveOut, reserveIn + net);
  const ideal = floorDiv(net * reserveOut, reserveIn);
  return { amountOut, priceImpactBps: ideal === 0n ? 0n : floorDiv((ideal - amountOut) * BPS, ideal) };
}
