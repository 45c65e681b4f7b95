import { seriesIn } from './labelled-series.js';

/** A validator's block-step totals and LevelDB files per level at one scrape. */
export interface BlockStepsReading {
  /** Per step (`execute`, `tree`, `write`, `recheck`): seconds and runs since start. */
  readonly steps: ReadonlyMap<string, { readonly seconds: number; readonly count: number }>;
  /** Table files per level, 0 first: the most of any one store (chain, tree), since each stalls its own writes. */
  readonly files: readonly number[];
}

/** `chain_block_step_seconds_total`, `chain_block_step_runs_total` and `chain_store_files` of a /metrics text. */
export function blockStepsIn(text: string): BlockStepsReading {
  const counts = new Map(seriesIn(text, 'chain_block_step_runs_total').map((s) => [s.labels.get('step') ?? '', s.value]));
  const steps = new Map(seriesIn(text, 'chain_block_step_seconds_total').map((s) => [s.labels.get('step') ?? '', { seconds: s.value, count: counts.get(s.labels.get('step') ?? '') ?? 0 }]));
  const files: number[] = [];
  for (const s of seriesIn(text, 'chain_store_files')) {
    const level = Number(s.labels.get('level'));
    files[level] = Math.max(files[level] ?? 0, s.value);
  }
  return { steps, files: Array.from(files, (n) => n ?? 0) };
}

/**
 * One line: each step's mean wall time per run over a phase (ms, the mean over validators of each
 * one's mean), and the level-0 file counts at the end. A flat-out rate is a block's size over the
 * interval between blocks, and these steps lie on that interval.
 */
export function formatBlockSteps(before: readonly BlockStepsReading[], after: readonly BlockStepsReading[]): string {
  const means = new Map<string, number[]>();
  after.forEach((a, i) => {
    for (const [step, end] of a.steps) {
      const start = before[i]?.steps.get(step) ?? { seconds: 0, count: 0 };
      const runs = end.count - start.count;
      if (runs > 0) means.set(step, [...(means.get(step) ?? []), ((end.seconds - start.seconds) * 1000) / runs]);
    }
  });
  if (means.size === 0) return 'block steps: none ran in the phase';
  const parts = [...means].map(([step, ms]) => `${step} ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1)}`);
  return `block steps, mean ms per block over the validators: ${parts.join(', ')}; LevelDB level-0 files at the end: ${after.map((a) => a.files[0] ?? 'n/a').join(', ')} (writes slow at 8, stop at 12)`;
}
