/**
 * What the linearizability search checks a history against: a sequential specification, as
 * porcupine's `NondeterministicModel`. `step` lists every state the object may be in after
 * applying `input` to `state` and answering `output` (none: that answer is impossible there); an
 * operation whose answer never came (`output` undefined) may list both "it happened" and "it did
 * not". States are compared by `key`, which also keys the search's cache of visited configurations.
 */
export interface Model<S, I, O> {
  readonly name: string;
  /** The state a part starts in (the part is the account when `partition` splits by account). */
  init(part: string): S;
  step(state: S, input: I, output: O | undefined): S[];
  key(state: S): string;
  /** Splits a history into independent parts checked one by one (per account); default: one part. */
  partition?(input: I): string;
}
