import type { NodeSnapshot } from './snapshot.js';

/**
 * One frame of `chain top` (decisions.md §88): a pure function of the node snapshots and the
 * terminal's width, so a frame can be pinned in a test and the driver only draws. One row per
 * node: its `.node`, height, round, proposer of its last block, TPS, mempool, peers and seconds
 * since its last block, or `down`. A narrow terminal loses the least telling columns first, then
 * long addresses are cut with `…`; no line is ever wider than `width`.
 */
export interface RenderOptions {
  /** ANSI colours (red for down, yellow for a node behind the highest height); never with --once or NO_COLOR. */
  readonly color: boolean;
}

type ColumnId = 'node' | 'height' | 'round' | 'proposer' | 'tps' | 'mempool' | 'peers' | 'last';

interface Column {
  readonly id: ColumnId;
  readonly title: string;
  readonly align: 'left' | 'right';
}

const COLUMNS: readonly Column[] = [
  { id: 'node', title: 'NODE', align: 'left' },
  { id: 'height', title: 'HEIGHT', align: 'right' },
  { id: 'round', title: 'ROUND', align: 'right' },
  { id: 'proposer', title: 'PROPOSER', align: 'left' },
  { id: 'tps', title: 'TPS', align: 'right' },
  { id: 'mempool', title: 'MEMPOOL', align: 'right' },
  { id: 'peers', title: 'PEERS', align: 'right' },
  { id: 'last', title: 'LAST BLOCK', align: 'right' },
];

/** Which columns go first when the terminal is too narrow; `node` and `height` always stay. */
const DROP_ORDER: readonly ColumnId[] = ['mempool', 'tps', 'round', 'proposer', 'peers', 'last'];
const GAP = '  ';
const MIN_PROPOSER = 10;
const MIN_NODE = 6;

const ANSI = { bold: '\x1b[1m', red: '\x1b[31m', yellow: '\x1b[33m', reset: '\x1b[0m' } as const;

function cut(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const t = cut(text, width);
  return align === 'left' ? t.padEnd(width) : t.padStart(width);
}

function label(s: NodeSnapshot): string {
  if (s.node_address !== null) return s.node_address;
  return s.up && s.moniker !== null ? `${s.moniker} (${s.url})` : s.url;
}

function cells(s: NodeSnapshot & { up: true }): Record<ColumnId, string> {
  return {
    node: label(s),
    height: String(s.height),
    round: String(s.round),
    proposer: s.proposer || '-',
    tps: String(s.tps),
    mempool: String(s.mempool),
    peers: String(s.peers),
    last: s.since_block_s === null ? '-' : `${s.since_block_s.toFixed(1)}s`,
  };
}

/** The columns that fit `width`, and the widths they get. */
function layout(rows: ReadonlyArray<Record<ColumnId, string>>, downLabels: readonly string[], width: number): Array<Column & { width: number }> {
  const natural = (c: Column): number => Math.max(c.title.length, ...rows.map((r) => r[c.id].length), ...(c.id === 'node' ? downLabels.map((l) => l.length) : []));
  let cols = COLUMNS.map((c) => ({ ...c, width: natural(c) }));
  const total = (): number => cols.reduce((n, c) => n + c.width, 0) + GAP.length * (cols.length - 1);
  const shrink = (id: ColumnId, min: number): void => {
    const c = cols.find((x) => x.id === id);
    if (c && total() > width) c.width = Math.max(min, c.width - (total() - width));
  };
  for (const id of DROP_ORDER) {
    if (total() <= width) break;
    if (id === 'proposer') shrink('proposer', MIN_PROPOSER);
    if (total() > width) cols = cols.filter((c) => c.id !== id);
  }
  shrink('node', MIN_NODE);
  return cols;
}

export function renderFrame(snapshots: readonly NodeSnapshot[], width: number, o: RenderOptions): string {
  const w = Math.max(20, Math.floor(width));
  const paint = (text: string, style: keyof typeof ANSI): string => (o.color && text.length > 0 ? `${ANSI[style]}${text}${ANSI.reset}` : text);
  const up = snapshots.filter((s): s is NodeSnapshot & { up: true } => s.up);
  const top = up.reduce((h, s) => Math.max(h, s.height), 0);
  const rows = up.map(cells);
  const cols = layout(rows, snapshots.filter((s) => !s.up).map(label), w);
  const line = (parts: string[]): string => parts.join(GAP);
  const summary = cut(`chain top  ${snapshots.length} node(s), ${up.length} up, height ${top}`, w);
  const header = cut(line(cols.map((c) => pad(c.title, c.width, c.align))), w);
  const out = [paint(summary, 'bold'), paint(header, 'bold')];
  for (const s of snapshots) {
    if (!s.up) {
      const nodeWidth = cols[0]!.width;
      const text = cut(`${pad(label(s), nodeWidth, 'left')}${GAP}down (${s.error})`, w);
      out.push(paint(text, 'red'));
      continue;
    }
    const r = cells(s);
    const parts = cols.map((c) => {
      const text = pad(r[c.id], c.width, c.align);
      return c.id === 'height' && s.height < top ? paint(text, 'yellow') : text;
    });
    // Cut before painting would split an escape; every cell is already within its width.
    out.push(o.color ? line(parts) : cut(line(parts), w));
  }
  return out.join('\n');
}
