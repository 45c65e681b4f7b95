/**
 * Main-thread GC pauses of a node, from prom-client's `nodejs_gc_duration_seconds` histogram in
 * its /metrics (kind: minor = scavenge, major = mark-compact, incremental, weakcb). Read before
 * and after a load phase, the difference says how much of that phase's event-loop delay was the
 * collector: under load on a shared machine the scavenges are the longest pauses.
 */
export interface GcPauses {
  readonly count: number;
  readonly sumMs: number;
  /** Pauses longer than 20 ms and than 50 ms (the event-loop target). */
  readonly over20: number;
  readonly over50: number;
}

export type GcPausesByKind = Record<string, GcPauses>;

const LINE = /^nodejs_gc_duration_seconds_(sum|count|bucket)\{([^}]*)\} ([0-9.e+-]+)$/;

function labelsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

export function parseGcPauses(metrics: string): GcPausesByKind {
  const acc: Record<string, { count: number; sum: number; le20: number; le50: number }> = {};
  for (const line of metrics.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const labels = labelsOf(m[2]!);
    const kind = labels.kind;
    if (kind === undefined) continue;
    const a = (acc[kind] ??= { count: 0, sum: 0, le20: 0, le50: 0 });
    const value = Number(m[3]);
    if (m[1] === 'sum') a.sum = value;
    else if (m[1] === 'count') a.count = value;
    else if (labels.le === '0.02') a.le20 = value;
    else if (labels.le === '0.05') a.le50 = value;
  }
  const out: GcPausesByKind = {};
  for (const [kind, a] of Object.entries(acc)) out[kind] = { count: a.count, sumMs: a.sum * 1000, over20: a.count - a.le20, over50: a.count - a.le50 };
  return out;
}

/** What happened between two readings of the same node. */
export function gcPausesBetween(before: GcPausesByKind, after: GcPausesByKind): GcPausesByKind {
  const out: GcPausesByKind = {};
  for (const [kind, a] of Object.entries(after)) {
    const b = before[kind] ?? { count: 0, sumMs: 0, over20: 0, over50: 0 };
    out[kind] = { count: a.count - b.count, sumMs: a.sumMs - b.sumMs, over20: a.over20 - b.over20, over50: a.over50 - b.over50 };
  }
  return out;
}

/** One validator's phase as `minor 51 (1.4 s, 35 > 20 ms, 11 > 50 ms), major ...`; kinds that did not run are left out. */
export function formatGcPauses(p: GcPausesByKind): string {
  const kinds = ['minor', 'major', 'incremental', 'weakcb'].filter((k) => (p[k]?.count ?? 0) > 0);
  if (kinds.length === 0) return 'none';
  return kinds.map((k) => {
    const x = p[k]!;
    return `${k} ${x.count} (${(x.sumMs / 1000).toFixed(2)} s, ${x.over20} > 20 ms, ${x.over50} > 50 ms)`;
  }).join(', ');
}
