/**
 * The node's one wall clock: block timestamps, consensus timeouts, the block pace and the P2P
 * transport's rate limits and idle detection all read time through it, so a test can skew one
 * host's clock the way a badly synchronised machine would, without touching the machine's.
 *
 * `CHAIN_CLOCK_OFFSET_MS` (an integer, may be negative) is for fault tests only
 * (docs/reliability.md, "Clock skew"): an operator fixes a skewed clock with NTP, not with this.
 */
export type Clock = () => number;

export const CLOCK_OFFSET_VARIABLE = 'CHAIN_CLOCK_OFFSET_MS';

/** At most a day either way: a larger offset is a typo, not a skew worth testing. */
const MAX_OFFSET_MS = 86_400_000;

/** The offset `text` names (undefined or empty: none); a clear error names the variable when it is not an integer in range. */
export function parseClockOffset(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 0;
  if (!/^[+-]?\d+$/.test(text.trim())) throw new Error(`${CLOCK_OFFSET_VARIABLE} must be an integer number of milliseconds, got ${JSON.stringify(text)}`);
  const offset = Number(text.trim());
  if (Math.abs(offset) > MAX_OFFSET_MS) throw new Error(`${CLOCK_OFFSET_VARIABLE} must be within ±${MAX_OFFSET_MS} ms, got ${offset}`);
  return offset;
}

/** `Date.now()` shifted by `offsetMs`. */
export function skewedClock(offsetMs: number, base: Clock = Date.now): Clock {
  return offsetMs === 0 ? base : () => base() + offsetMs;
}
