/**
 * What a failing check says: which property broke, how, and the part of the history that shows
 * it. `reportFailures` makes the text a failing run prints, led by the seed that replays it.
 */
export interface CheckFailure {
  readonly check: string;
  readonly message: string;
  /** The lines of history (operations, blocks) that break the property. */
  readonly window: readonly string[];
}

export function reportFailures(seed: number, failures: readonly CheckFailure[]): string {
  const parts = [`history check failed (replay with TEST_SEED=${seed}):`];
  for (const f of failures) parts.push(`- ${f.check}: ${f.message}`, ...f.window.map((line) => `    ${line}`));
  return parts.join('\n');
}
