import { seriesIn } from './labelled-series.js';

/**
 * The validators' `chain_state_reads_total` (committed state keys read from the store, by how and
 * by family) as reads per transaction on chain: what a read-ahead saves shows here as a count,
 * which repeats between runs, where the rates it moves are within the machine's noise.
 */

/** One labelled series of `chain_state_reads_total`. */
export interface StateReadSample {
  readonly via: string;
  readonly family: string;
  readonly reads: number;
}

/** Every series of `chain_state_reads_total` in a /metrics text. */
export function stateReadsIn(text: string): StateReadSample[] {
  return seriesIn(text, 'chain_state_reads_total').map((s) => ({ via: s.labels.get('via') ?? '', family: s.labels.get('family') ?? '', reads: s.value }));
}

/**
 * One line: reads per transaction and per validator, by `via family`, largest first, and the
 * totals by via. `txs` is what the reads are divided by (the chain's transactions, or a phase's
 * committed ones), every validator having executed each.
 */
export function formatStateReads(perValidator: ReadonlyArray<readonly StateReadSample[]>, txs: number, what = 'transaction on chain'): string {
  if (txs <= 0 || perValidator.length === 0) return `state reads from LevelDB: no ${what} to divide by`;
  const sums = new Map<string, number>();
  const byVia = new Map<string, number>();
  for (const samples of perValidator) {
    for (const s of samples) {
      sums.set(`${s.via} ${s.family}`, (sums.get(`${s.via} ${s.family}`) ?? 0) + s.reads);
      byVia.set(s.via, (byVia.get(s.via) ?? 0) + s.reads);
    }
  }
  const per = (n: number): string => (n / (txs * perValidator.length)).toFixed(2);
  const rows = [...sums.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const totals = [...byVia.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([via, n]) => `${via} ${per(n)}`);
  return `state keys read from the store per ${what}, per validator (cache misses, some answered by the chain store's key filter; chain_state_reads_total): ${totals.join(', ')}; by family: ${rows.map(([k, n]) => `${k} ${per(n)}`).join(', ')}`;
}

/** The reads between two scrapes of one validator (a series absent before counts from 0). */
export function stateReadsBetween(before: readonly StateReadSample[], after: readonly StateReadSample[]): StateReadSample[] {
  const was = new Map(before.map((s) => [`${s.via} ${s.family}`, s.reads]));
  return after.map((s) => ({ ...s, reads: s.reads - (was.get(`${s.via} ${s.family}`) ?? 0) })).filter((s) => s.reads > 0);
}
