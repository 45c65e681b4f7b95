import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { importsOf, typeScriptSources } from './helpers/import-specifiers.js';

/**
 * The kernel's folders form layers: a folder imports only folders of lower layers, never one of
 * its own layer or above, so a reader can learn the kernel bottom up and a change to a folder can
 * only break the layers above it. Type-only imports count too: what a file names, its reader must
 * know. Tests are left out (a test may build a whole node to check one folder). The order and why
 * each layer sits where it does: docs/architecture.md, "Layers".
 *
 * A node of the graph is a folder of kernel/ or a file directly in kernel/ (errors.ts, sdk.ts).
 */
export const KERNEL_LAYERS: readonly (readonly string[])[] = [
  ['errors.ts', 'codec'],
  ['light-client'],
  ['crypto'],
  ['model'],
  ['consensus'],
  ['p2p', 'rpc'],
  ['tx', 'mempool'],
  ['state'],
  ['store'],
  ['config'],
  ['context'],
  ['ops'],
  ['host'],
  ['auth'],
  ['chain'],
  ['replica'],
  ['node'],
  ['sdk.ts'],
];

const ROOT = resolve('.');
const KERNEL = join(ROOT, 'kernel');

/** The node of the folder graph a kernel file belongs to. */
function nodeOf(file: string): string {
  return relative(KERNEL, file).split(sep)[0]!;
}

interface Edge {
  readonly from: string;
  readonly to: string;
  /** `kernel/<importer> -> kernel/<imported>`, for the failure message. */
  readonly files: string;
}

/** Every import of one kernel node by another, from the non-test sources. */
function kernelEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of typeScriptSources(KERNEL)) {
    if (file.endsWith('.test.ts')) continue;
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      if (!target.startsWith(KERNEL + sep)) continue;
      const from = nodeOf(file);
      const to = nodeOf(target);
      if (from !== to) edges.push({ from, to, files: `${relative(ROOT, file)} -> ${relative(ROOT, target)}` });
    }
  }
  return edges;
}

function layerIndex(): Map<string, number> {
  const index = new Map<string, number>();
  KERNEL_LAYERS.forEach((layer, i) => layer.forEach((node) => index.set(node, i)));
  return index;
}

/** The strongly connected components of more than one node: the cycles, each sorted. */
export function cycles(edges: readonly Pick<Edge, 'from' | 'to'>[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)!.push(to);
  }
  // Tarjan's algorithm; the graph has a few dozen nodes, so recursion depth is no concern.
  let counter = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!order.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

test('every folder and top-level file of kernel/ has a layer', () => {
  const index = layerIndex();
  const nodes = new Set(typeScriptSources(KERNEL).map(nodeOf));
  const missing = [...nodes].filter((n) => !index.has(n)).sort();
  const gone = [...index.keys()].filter((n) => !nodes.has(n)).sort();
  assert.deepEqual(missing, [], 'give these a layer in KERNEL_LAYERS and docs/architecture.md');
  assert.deepEqual(gone, [], 'these layers name nothing in kernel/');
  assert.equal(index.size, KERNEL_LAYERS.flat().length, 'a node is named in one layer only');
});

test('a kernel folder imports only folders of lower layers', () => {
  const index = layerIndex();
  const offences = kernelEdges()
    .filter((e) => (index.get(e.to) ?? -1) >= (index.get(e.from) ?? -1))
    .map((e) => `${e.from} (layer ${index.get(e.from)}) imports ${e.to} (layer ${index.get(e.to)}): ${e.files}`);
  assert.deepEqual([...new Set(offences)], [], 'move the shared code down to the lower folder, or the importer up');
});

test('the folder graph of kernel/ has no cycles', () => {
  assert.deepEqual(cycles(kernelEdges()), []);
});

test('cycles finds every strongly connected component of more than one node', () => {
  const e = (from: string, to: string) => ({ from, to });
  assert.deepEqual(cycles([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd'), e('d', 'e'), e('e', 'd'), e('f', 'a')]), [['a', 'b', 'c'], ['d', 'e']]);
  assert.deepEqual(cycles([e('a', 'b'), e('b', 'c')]), []);
});
