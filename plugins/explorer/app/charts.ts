import uPlot from 'uplot';
import type { Json } from './api.js';

/**
 * Block time and TPS over the recent blocks (uPlot, bundled from node_modules): block time is the
 * gap between consecutive block timestamps, TPS a block's transactions over that gap.
 */
export interface Series {
  readonly heights: number[];
  readonly blockTimeMs: number[];
  readonly tps: number[];
}

/** From blocks in any order, ascending by height. */
export function seriesOf(blocks: readonly Json[]): Series {
  const asc = [...blocks].sort((a, b) => Number(a['height']) - Number(b['height']));
  const out: Series = { heights: [], blockTimeMs: [], tps: [] };
  for (let i = 1; i < asc.length; i++) {
    const prev = asc[i - 1]!;
    const cur = asc[i]!;
    if (Number(cur['height']) !== Number(prev['height']) + 1) continue;
    const gap = Number(cur['timestamp']) - Number(prev['timestamp']);
    out.heights.push(Number(cur['height']));
    out.blockTimeMs.push(gap);
    out.tps.push(gap > 0 ? (Number(cur['tx_count']) * 1000) / gap : 0);
  }
  return out;
}

export function makeChart(el: HTMLElement, title: string, label: string, color: string): uPlot {
  return new uPlot(
    {
      title,
      width: Math.max(280, Math.min(560, el.clientWidth || 480)),
      height: 180,
      scales: { x: { time: false } },
      axes: [{ label: 'height' }, { label }],
      series: [{ label: 'height' }, { label, stroke: color, width: 2, points: { show: false } }],
      legend: { show: false },
    },
    [[], []],
    el,
  );
}
