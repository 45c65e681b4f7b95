import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * Comments and documents cite `decisions.md §N` and "part 1, <section> <item>" / "part 2, …".
 * Both resolve inside the repository: the decisions are `docs/decisions.md`, and parts 1 and 2
 * of the interface are summarised in `docs/interface.md` under the section names the code cites.
 * This reads every source and document of the repository and refuses a citation that names a
 * decision `docs/decisions.md` lacks, or a section (and numbered item) of part 1 or 2 that
 * `docs/interface.md` does not have.
 */
const ROOT = resolve('.');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', 'data']);
const EXTENSIONS = ['.ts', '.mjs', '.md', '.json'];
/** This file's own examples of broken citations are not citations. */
const SKIP_FILES = new Set(['package.json', 'package-lock.json', 'docs-citations.test.ts']);

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.') || SKIP_DIRS.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else if (EXTENSIONS.some((e) => name.endsWith(e)) && !SKIP_FILES.has(name)) out.push(p);
  }
  return out;
}

/** The numbers `docs/decisions.md` defines: its top-level numbered items. */
export function decisionNumbers(text: string): Set<number> {
  return new Set([...text.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])));
}

/** A section of `docs/interface.md`: its part, normalised name, and the numbered items inside it (subsections included). */
export interface Section {
  readonly part: 1 | 2;
  readonly name: string;
  readonly items: Set<number>;
}

export interface InterfaceDoc {
  readonly sections: readonly Section[];
  /** Each part's text, normalised, for phrases and names a citation quotes. */
  readonly text: Readonly<Record<1 | 2, string>>;
}

export function normalise(s: string): string {
  return s
    .toLowerCase()
    .replace(/[-_,:"“”`]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Parts are the `## Part 1…` and `## Part 2…` regions; sections the deeper headings. */
export function parseInterface(text: string): InterfaceDoc {
  const sections: Array<Section & { level: number }> = [];
  const open: Array<Section & { level: number }> = [];
  const parts: Record<1 | 2, string[]> = { 1: [], 2: [] };
  let part: 1 | 2 | undefined;
  for (const line of text.split('\n')) {
    const heading = /^(#{2,6}) (.+)$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const partStart = level === 2 ? /^Part ([12])\b/.exec(heading[2]!) : null;
      if (level === 2) {
        part = partStart ? (Number(partStart[1]) as 1 | 2) : undefined;
        open.length = 0;
        continue;
      }
      while (open.length > 0 && open[open.length - 1]!.level >= level) open.pop();
      if (part === undefined) continue;
      const s = { part, name: normalise(heading[2]!), items: new Set<number>(), level };
      sections.push(s);
      open.push(s);
      parts[part].push(heading[2]!);
      continue;
    }
    if (part === undefined) continue;
    parts[part].push(line);
    const item = /^\s*(\d+)\. /.exec(line);
    if (item) for (const s of open) s.items.add(Number(item[1]));
  }
  return { sections, text: { 1: normalise(parts[1].join('\n')), 2: normalise(parts[2].join('\n')) } };
}

/** Every number of a list such as `7`, `2–5`, `1, 4, 7`, `2 and 7` (ranges expanded). */
export function numbersOf(list: string): number[] {
  const out: number[] = [];
  for (const m of list.matchAll(/(\d+)(?:\s?[–-]\s?(\d+))?/g)) {
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (let n = a; n <= b && n - a < 200; n++) out.push(n);
  }
  return out;
}

const PART_CITE = /\b[Pp]art ([12])(?:,|:)? (?:(["“`])([^"”`\n]{1,80})["”`]|([A-Z][^\n;.()"“`]{0,80}))/g;
const NAME_END = /\s*(?:[,:;]|\bitems?\b|§|\d|'s\b|$)/;
const NUMBERS_AFTER = /^\s*(?:items?\s+|§\s?)?(\d+(?:\s?[–-]\s?\d+)?(?:(?:,\s*|\s+and\s+)\d+(?:\s?[–-]\s?\d+)?)*)/;

/** Why a "part N, <section> <items>" citation does not resolve in `doc`, or undefined when it does. */
export function partProblem(doc: InterfaceDoc, part: 1 | 2, quoted: string | undefined, quote: string | undefined, bare: string | undefined): string | undefined {
  const raw = quoted ?? bare ?? '';
  let name = raw;
  let rest = '';
  if (quoted === undefined) {
    const end = NAME_END.exec(raw);
    name = raw.slice(0, end?.index ?? raw.length);
    rest = raw.slice(end?.index ?? raw.length);
  }
  const n = normalise(name);
  if (n.length === 0) return undefined;
  const numbers = numbersOf(NUMBERS_AFTER.exec(rest)?.[1] ?? '');
  const candidates = doc.sections.filter((s) => s.part === part && (s.name === n || s.name.startsWith(`${n} `) || n.startsWith(`${s.name} `)));
  if (candidates.length === 0) {
    // A quoted phrase, an event or variable name: it must be in that part's summary.
    if (quote === '`' || numbers.length === 0) return doc.text[part].includes(n) ? undefined : `part ${part} has no section or text "${name}"`;
    return `part ${part} has no section "${name}"`;
  }
  if (numbers.length > 0 && !candidates.some((s) => numbers.every((x) => s.items.has(x)))) return `part ${part}, "${name}" has no item ${numbers.join(', ')}`;
  return undefined;
}

/** Every unresolved citation of `text` (one file), as `line: citation: why`. */
export function unresolved(text: string, decisions: Set<number>, doc: InterfaceDoc): string[] {
  const problems: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const taken = new Set<number>();
    for (const m of line.matchAll(PART_CITE)) {
      const why = partProblem(doc, Number(m[1]) as 1 | 2, m[3], m[2], m[4]);
      if (why) problems.push(`${i + 1}: ${m[0].trim()}: ${why}`);
      // A § inside the part citation ("part 2, Authentication §4") is that part's item, not a decision.
      for (const s of m[0].matchAll(/§/g)) taken.add(m.index! + s.index!);
    }
    for (const m of line.matchAll(/§\s?(\d+(?:\.\d+)*)(?:\s?[–-]\s?(\d+))?/g)) {
      if (taken.has(m.index!)) continue;
      const before = line.slice(Math.max(0, m.index! - 40), m.index!);
      if (/RFC ?\d+\s*$/.test(before)) continue;
      // A section of the interface named just before (a citation continued from the line above).
      const section = /([A-Z][a-z]+(?: [a-z]+)*),? $/.exec(before)?.[1];
      if (section !== undefined && doc.sections.some((s) => s.name === normalise(section))) {
        const nums = numbersOf(m[0]);
        if (!doc.sections.some((s) => s.name === normalise(section) && nums.every((x) => s.items.has(x)))) problems.push(`${i + 1}: ${section} ${m[0]}: no such item in docs/interface.md`);
        continue;
      }
      if (m[1]!.includes('.')) {
        problems.push(`${i + 1}: ${m[0]}: not a decision number (a sub-numbered § must name its RFC)`);
        continue;
      }
      const missing = numbersOf(m[0]).filter((x) => !decisions.has(x));
      if (missing.length > 0) problems.push(`${i + 1}: ${m[0]}: docs/decisions.md has no §${missing.join(', §')}`);
    }
  });
  return problems;
}

const decisions = decisionNumbers(readFileSync(join(ROOT, 'docs', 'decisions.md'), 'utf8'));
const doc = parseInterface(readFileSync(join(ROOT, 'docs', 'interface.md'), 'utf8'));

test('docs/decisions.md numbers §1 to §99, and docs/interface.md has both parts', () => {
  assert.deepEqual([...decisions].sort((a, b) => a - b), Array.from({ length: 99 }, (_, i) => i + 1));
  for (const part of [1, 2] as const) assert.ok(doc.sections.filter((s) => s.part === part).length > 20, `part ${part}'s sections`);
});

test('every decisions.md § and part 1/2 section cited in the repository resolves in docs/', () => {
  const all = files(ROOT);
  assert.ok(all.length > 200, 'the sources were found');
  const problems: string[] = [];
  let cited = 0;
  for (const file of all) {
    const text = readFileSync(file, 'utf8');
    cited += (text.match(/§|\b[Pp]art [12]\b/g) ?? []).length;
    for (const p of unresolved(text, decisions, doc)) problems.push(`${relative(ROOT, file)}:${p}`);
  }
  assert.ok(cited > 300, `citations were read (${cited})`);
  assert.deepEqual(problems, [], `citations that docs/decisions.md or docs/interface.md cannot resolve:\n${problems.join('\n')}`);
});

test('the checker refuses what does not resolve', () => {
  const small = parseInterface('## Part 1: x\n### Consensus\n1. a\n2. b\n#### Inner\n3. c\n### Staking\n| t |\n## Part 2: y\n### Authentication\n#### Who needs what\n4. d\n### Limits\n`WS_MAX_MSG_BYTES`\n');
  const d = new Set([1, 2, 3]);
  const check = (text: string): string[] => unresolved(text, d, small);
  assert.deepEqual(check('// decisions.md §2, §1–3, RFC 9110 §15.6.2; part 1, Consensus 3; part 2, Authentication §4; part 2 "Limits"; part 2, WS_MAX_MSG_BYTES'), []);
  assert.match(check('// decisions.md §4')[0]!, /has no §4/);
  assert.match(check('// decisions.md §2–5')[0]!, /has no §4, §5/);
  assert.match(check('// see §3.1')[0]!, /not a decision number/);
  assert.match(check('// part 1, Consensus 9')[0]!, /has no item 9/);
  assert.match(check('// part 1, Governance 2')[0]!, /no section "Governance"/);
  assert.match(check('// part 2 "Who may sign"')[0]!, /no section or text/);
  assert.match(check('// part 2, Authentication §5')[0]!, /has no item 5/);
  assert.match(check('// part 1 `no_such_event`')[0]!, /no section or text/);
  assert.match(check('// part 1, Staking 1')[0]!, /"Staking" has no item 1/);
  assert.deepEqual(check('// part 1, Consensus item 3 and part 1, Inner 3'), [], 'an item of a subsection counts for the section around it')
});
