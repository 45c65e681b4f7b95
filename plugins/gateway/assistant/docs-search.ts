import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DocPassage } from './docs-passages.js';

/** decisions.md §52's `model` of the assistant: a search over the docs, no language model. */
export const ASSISTANT_MODEL = 'docs-search-v1';

/** Written by `npm run build` (build-assets.ts) beside this module's compiled file. */
export const DOCS_INDEX_FILE = fileURLToPath(new URL('../assets/docs-index.json', import.meta.url));

/** Passages an answer is made of, at most. */
const ANSWER_PASSAGES = 3;

/** Words that match nearly every passage and would rank by noise ("how do I stake" is about staking). */
const STOP_WORDS = new Set(
  'a an and are as at be but by can do does for from has have how i if in into is it its me my of on or so than that the their then there these this to was what when where which who why will with would you your'.split(' '),
);

/** One analyser for the build and the search, so a query's terms are the index's. */
const OPTIONS: Options<DocPassage> = {
  idField: 'id',
  fields: ['title', 'text'],
  storeFields: ['path', 'title', 'text'],
  processTerm: (term) => {
    const t = term.toLowerCase();
    return t.length < 2 || STOP_WORDS.has(t) ? null : t;
  },
  searchOptions: { boost: { title: 2 }, combineWith: 'OR', prefix: (term) => term.length >= 4, fuzzy: false },
};

/** The serialised index of `passages` (what the build writes). */
export function buildDocsIndex(passages: readonly DocPassage[]): string {
  const ms = new MiniSearch<DocPassage>(OPTIONS);
  ms.addAll(passages);
  return JSON.stringify({ model: ASSISTANT_MODEL, documents: new Set(passages.map((p) => p.path)).size, passages: passages.length, index: ms.toJSON() });
}

export interface AssistantSource {
  readonly path: string;
  readonly title: string;
  readonly score: number;
}

export interface AssistantAnswer {
  readonly answer: string;
  readonly sources: readonly AssistantSource[];
  readonly model: string;
}

/**
 * The documentation assistant's search (decisions.md §52): a MiniSearch index of the project's
 * Markdown passages, built offline by `npm run build` and loaded read-only. An answer is the
 * text of the best-matching passages with their sources; nothing is generated, nothing is
 * fetched, so the same question always gets the same answer.
 */
export class DocsSearch {
  private constructor(
    private readonly index: MiniSearch<DocPassage>,
    /** Markdown files indexed. */
    readonly documents: number,
  ) {}

  static fromJson(text: string): DocsSearch {
    const saved = JSON.parse(text) as { documents: number; index: unknown };
    return new DocsSearch(MiniSearch.loadJSON<DocPassage>(JSON.stringify(saved.index), OPTIONS), saved.documents);
  }

  /** The built index, or undefined when the build did not write one. */
  static load(file = DOCS_INDEX_FILE): DocsSearch | undefined {
    return existsSync(file) ? DocsSearch.fromJson(readFileSync(file, 'utf8')) : undefined;
  }

  ask(question: string): AssistantAnswer {
    const hits = this.index
      .search(question)
      // Equal scores in a fixed order: the answer does not depend on the index's insertion history.
      .sort((a: SearchResult, b: SearchResult) => b.score - a.score || (String(a.id) < String(b.id) ? -1 : 1))
      .slice(0, ANSWER_PASSAGES);
    return {
      answer: hits.map((h) => `${String(h.title)} (${String(h.path)})\n\n${String(h.text)}`).join('\n\n---\n\n'),
      sources: hits.map((h) => ({ path: String(h.path), title: String(h.title), score: Math.round(h.score * 1000) / 1000 })),
      model: ASSISTANT_MODEL,
    };
  }
}
