import type { Model } from './model.js';
import type { Operation } from './operation.js';

/**
 * Whether a concurrent history is linearizable against a sequential model: the Wing–Gong search
 * with Lowe's cache of visited (linearized set, state) configurations, as porcupine does it. The
 * history is a list of call and return events in time order; the search walks it, linearizing a
 * call as soon as the model accepts it there and backtracking when it meets the return of an
 * operation it has not linearized. Nondeterministic models are made deterministic by searching
 * over the set of states the object may be in (porcupine's power-set construction).
 *
 * Independent parts (`model.partition`, one per account) are searched one by one: the cost is
 * exponential in the concurrency of a part, not of the whole history.
 */
export type LinearizabilityResult<I, O> = { readonly ok: true } | { readonly ok: false; readonly part: string; readonly failure: NonLinearizable<I, O> };

export interface NonLinearizable<I, O> {
  /** The operation whose answer no order of the operations before and beside it explains. */
  readonly culprit: Operation<I, O>;
  /** The longest order the search found that the model accepts, before it got stuck. */
  readonly longestPrefix: ReadonlyArray<Operation<I, O>>;
  /** Every operation of the part overlapping the culprit in time: the window a report prints. */
  readonly window: ReadonlyArray<Operation<I, O>>;
}

interface Entry {
  readonly op: number;
  readonly isCall: boolean;
  match: Entry | null;
  prev: Entry | null;
  next: Entry | null;
}

export function checkLinearizable<S, I, O>(model: Model<S, I, O>, history: ReadonlyArray<Operation<I, O>>): LinearizabilityResult<I, O> {
  const parts = new Map<string, Operation<I, O>[]>();
  for (const op of history) {
    const part = model.partition?.(op.input) ?? '';
    let list = parts.get(part);
    if (!list) parts.set(part, (list = []));
    list.push(op);
  }
  for (const part of [...parts.keys()].sort()) {
    const failure = checkPart(model, part, parts.get(part)!);
    if (failure) return { ok: false, part, failure };
  }
  return { ok: true };
}

/** The call and return events of `ops` as a doubly linked list in time order, behind a sentinel head. */
function eventList<I, O>(ops: ReadonlyArray<Operation<I, O>>): Entry {
  const events: Array<{ time: number; entry: Entry }> = [];
  ops.forEach((op, i) => {
    if (!(op.returnedAt >= op.calledAt)) throw new Error(`operation ${i} of ${op.client} returns (${op.returnedAt}) before it is called (${op.calledAt})`);
    const call: Entry = { op: i, isCall: true, match: null, prev: null, next: null };
    const ret: Entry = { op: i, isCall: false, match: null, prev: null, next: null };
    call.match = ret;
    events.push({ time: op.calledAt, entry: call }, { time: op.returnedAt, entry: ret });
  });
  // At equal times a call comes first: the two operations count as concurrent, the lenient reading.
  events.sort((a, b) => a.time - b.time || (a.entry.isCall === b.entry.isCall ? a.entry.op - b.entry.op : a.entry.isCall ? -1 : 1));
  const head: Entry = { op: -1, isCall: false, match: null, prev: null, next: null };
  let last = head;
  for (const { entry } of events) {
    last.next = entry;
    entry.prev = last;
    last = entry;
  }
  return head;
}

/** Takes a linearized operation's call and return out of the list. */
function lift(call: Entry): void {
  call.prev!.next = call.next;
  if (call.next) call.next.prev = call.prev;
  const ret = call.match!;
  ret.prev!.next = ret.next;
  if (ret.next) ret.next.prev = ret.prev;
}

/** Puts them back, the inverse of `lift` (in reverse order). */
function unlift(call: Entry): void {
  const ret = call.match!;
  ret.prev!.next = ret;
  if (ret.next) ret.next.prev = ret;
  call.prev!.next = call;
  if (call.next) call.next.prev = call;
}

function checkPart<S, I, O>(model: Model<S, I, O>, part: string, ops: ReadonlyArray<Operation<I, O>>): NonLinearizable<I, O> | undefined {
  const head = eventList(ops);
  const stateKey = (states: readonly S[]): string => states.map((s) => model.key(s)).join('\u0000');
  const cache = new Set<string>();
  const stack: Array<{ call: Entry; states: S[] }> = [];
  let states: S[] = [model.init(part)];
  let linearized = 0n;
  let longest: number[] = [];
  // The first return met at the deepest point the search reached: what a report blames.
  let stuckAt = -1;
  let stuckDepth = -1;
  let entry = head.next;
  while (head.next !== null) {
    if (entry === null) throw new Error('the search ran off the end of the history (a bug in the checker)');
    if (entry.isCall) {
      const op = ops[entry.op]!;
      const next = new Map<string, S>();
      for (const s of states) for (const n of model.step(s, op.input, op.output)) next.set(model.key(n), n);
      if (next.size > 0) {
        const nextStates = [...next.keys()].sort().map((k) => next.get(k)!);
        const bits = linearized | (1n << BigInt(entry.op));
        const seen = `${bits.toString(36)}|${stateKey(nextStates)}`;
        if (!cache.has(seen)) {
          cache.add(seen);
          stack.push({ call: entry, states });
          states = nextStates;
          linearized = bits;
          lift(entry);
          if (stack.length > longest.length) longest = stack.map((f) => f.call.op);
          entry = head.next;
          continue;
        }
      }
      entry = entry.next;
    } else {
      // The return of an operation not yet linearized: no order up to here explains it.
      if (stack.length > stuckDepth) {
        stuckDepth = stack.length;
        stuckAt = entry.op;
      }
      const frame = stack.pop();
      if (!frame) {
        const culprit = ops[stuckAt]!;
        return { culprit, longestPrefix: longest.map((i) => ops[i]!), window: ops.filter((o) => o.calledAt <= culprit.returnedAt && o.returnedAt >= culprit.calledAt) };
      }
      states = frame.states;
      linearized &= ~(1n << BigInt(frame.call.op));
      unlift(frame.call);
      entry = frame.call.next;
    }
  }
  return undefined;
}
