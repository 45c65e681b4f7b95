/**
 * One call a client made and what it got back, with the times it was sent and answered on the
 * test's clock (monotonic milliseconds). An answer that never came (a timeout, a dropped
 * connection) has `returnedAt: Infinity`: the call may have taken effect at any time after it was
 * sent, or never, and the checkers must allow both.
 */
export interface Operation<I, O> {
  /** Which client made the call (for the report). */
  readonly client: string;
  readonly input: I;
  /** undefined when no answer came. */
  readonly output: O | undefined;
  readonly calledAt: number;
  readonly returnedAt: number;
}

/** Times on the test's clock, in milliseconds: monotonic, so a reordered wall clock cannot reorder the history. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/** A line per operation, as a failing check prints its window. */
export function describeOperation<I, O>(op: Operation<I, O>, show: (value: unknown) => string = defaultShow): string {
  const answered = Number.isFinite(op.returnedAt) ? `${op.returnedAt}` : 'never';
  return `[${op.calledAt} → ${answered}] ${op.client}: ${show(op.input)} ⇒ ${op.output === undefined ? 'no answer' : show(op.output)}`;
}

function defaultShow(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}
