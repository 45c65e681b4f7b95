/*
 * Where the relayer moves a destination's client of a source chain (decisions.md §70). A recv is
 * refused once the client reaches the packet's timeout_height (§69), so the client never goes to
 * or past the timeout of a packet still waiting for its first recv attempt; within that bound it
 * goes to the source's newest header (the periodic update, which also carries timeouts and acks
 * forward), else to the highest height some delivery needs that has a header of its own (a block
 * that wrote a commitment or receipt always has one, §64).
 */

export interface WaitingRecv {
  /** The source height that committed the packet. */
  readonly height: number;
  readonly timeoutHeight: number;
  /** A recv was tried and refused at admission: the destination will not take it, so its timeout may pass. */
  readonly tried: boolean;
}

export interface TargetInput {
  /** The client's `latest_height`. */
  readonly latest: number;
  /** The source's newest served header, if any. */
  readonly newestHeader: number | undefined;
  /** Source packets not yet received at the destination. */
  readonly waiting: readonly WaitingRecv[];
  /** Source heights a delivery needs the client to verify (packet and receipt heights, each with a header). */
  readonly needed: readonly number[];
}

/** The bound a client update must stay below: the least timeout of an untried packet the client has not passed. */
export function timeoutBound(latest: number, waiting: readonly WaitingRecv[]): number {
  let bound = Number.POSITIVE_INFINITY;
  for (const w of waiting) if (!w.tried && latest < w.timeoutHeight && w.timeoutHeight < bound) bound = w.timeoutHeight;
  return bound;
}

/** The height to update the client to, or undefined when it should stay where it is. */
export function clientTarget(t: TargetInput): number | undefined {
  const bound = timeoutBound(t.latest, t.waiting);
  if (t.newestHeader !== undefined && t.newestHeader > t.latest && t.newestHeader < bound) return t.newestHeader;
  let best: number | undefined;
  for (const h of t.needed) if (h > t.latest && h < bound && (best === undefined || h > best)) best = h;
  return best;
}

/** The least verified height at or above `from` (a proof height for something `from` wrote), if any. */
export function proofHeightFrom(heights: readonly number[], from: number): number | undefined {
  let best: number | undefined;
  for (const h of heights) if (h >= from && (best === undefined || h < best)) best = h;
  return best;
}
