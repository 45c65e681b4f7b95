/** One sample of a labelled Prometheus series: its labels and its value. */
export interface LabelledSample {
  readonly labels: ReadonlyMap<string, string>;
  readonly value: number;
}

const LABEL = /(\w+)="([^"]*)"/g;

/** Every labelled sample of the metric `name` in a /metrics text (the unlabelled one, if any, is not). */
export function seriesIn(text: string, name: string): LabelledSample[] {
  const sample = new RegExp(`^${name}\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm');
  return [...text.matchAll(sample)].map((m) => ({ labels: new Map([...m[1]!.matchAll(LABEL)].map((l) => [l[1]!, l[2]!])), value: Number(m[2]) }));
}
