import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** One searchable passage: a section of a Markdown file (long sections in several parts). */
export interface DocPassage {
  /** `<path>#<n>`: unique and stable for the same files. */
  readonly id: string;
  /** The file, relative to the repository root, with `/`. */
  readonly path: string;
  /** The section's heading (the file's first heading, or its name, before any). */
  readonly title: string;
  readonly text: string;
}

/** Folders never indexed: dependencies, build output, version control. */
const SKIPPED = new Set(['node_modules', 'dist', 'coverage', '.git']);
/** A section longer than this is cut at paragraph ends, so one answer is a readable passage. */
const MAX_PASSAGE_CHARS = 1500;

/** Every `*.md` file under `root` (hidden and SKIPPED folders left out), as sorted relative paths. */
export function markdownFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.') || SKIPPED.has(name)) continue;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile() && name.toLowerCase().endsWith('.md')) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)/;

/**
 * A Markdown file's passages: one per section (a heading and the text up to the next heading;
 * headings inside code fences do not count), long sections cut at blank lines.
 */
export function passagesOf(path: string, markdown: string): DocPassage[] {
  const lines = markdown.split(/\r?\n/);
  const sections: Array<{ title: string; lines: string[] }> = [];
  let current: { title: string; lines: string[] } = { title: path, lines: [] };
  let fileTitle: string | undefined;
  let inFence = false;
  for (const line of lines) {
    if (FENCE.test(line)) inFence = !inFence;
    const h = inFence ? null : HEADING.exec(line);
    if (h) {
      sections.push(current);
      const title = h[2]!.replace(/`/g, '');
      fileTitle ??= title;
      current = { title, lines: [] };
      continue;
    }
    current.lines.push(line);
  }
  sections.push(current);
  const out: DocPassage[] = [];
  for (const s of sections) {
    const title = s.title === path ? (fileTitle ?? path) : s.title;
    for (const text of chunks(s.lines.join('\n').trim())) out.push({ id: `${path}#${out.length}`, path, title, text });
  }
  return out;
}

function chunks(text: string): string[] {
  if (text.length === 0) return [];
  if (text.length <= MAX_PASSAGE_CHARS) return [text];
  const out: string[] = [];
  let part = '';
  for (const para of text.split(/\n\s*\n/)) {
    if (part.length > 0 && part.length + para.length + 2 > MAX_PASSAGE_CHARS) {
      out.push(part);
      part = '';
    }
    part = part.length === 0 ? para : `${part}\n\n${para}`;
  }
  if (part.length > 0) out.push(part);
  return out;
}

/** The passages of every Markdown file of the repository at `root`. */
export function collectDocPassages(root: string): DocPassage[] {
  return markdownFiles(root).flatMap((p) => passagesOf(p, readFileSync(join(root, p), 'utf8')));
}
