import { assertFixedSegment, type KeyPart, type KeySegment, type KeyValues } from './key-parts.js';

const SLASH = '/'.charCodeAt(0);

/**
 * A declared store's key layout (`delegation/<validator>/<delegator>`): builds keys from values,
 * reads values back from keys, and says whether a raw key or scan prefix lies inside it. The
 * first segment is fixed (the store's prefix); segments are joined with `/`.
 */
export class KeyLayout<S extends readonly KeySegment[] = readonly KeySegment[]> {
  /** The layout as the metadata route and the README show it. */
  readonly text: string;
  /** The fixed segments the layout starts with, joined (`delegation`, `by_status`). */
  readonly prefix: string;
  private readonly parts: ReadonlyArray<KeyPart<unknown>>;

  constructor(
    private readonly owner: string,
    readonly segments: S,
  ) {
    if (segments.length === 0 || typeof segments[0] !== 'string') throw new Error(`${owner}: a key layout starts with a fixed segment (its prefix)`);
    const names = new Set<string>();
    const fixed: string[] = [];
    let leading = true;
    for (const s of segments) {
      if (typeof s === 'string') {
        assertFixedSegment(s, owner);
        if (leading) fixed.push(s);
        continue;
      }
      leading = false;
      if (names.has(s.name)) throw new Error(`${owner}: key part <${s.name}> appears twice`);
      names.add(s.name);
    }
    this.prefix = fixed.join('/');
    this.parts = segments.filter((s): s is KeyPart<unknown> => typeof s !== 'string');
    this.text = segments.map((s) => (typeof s === 'string' ? s : `<${s.name}>`)).join('/');
  }

  /** The typed parts, in key order. */
  get keyParts(): ReadonlyArray<KeyPart<unknown>> {
    return this.parts;
  }

  /** The key of the record these values name. */
  key(values: KeyValues<S>): string {
    return this.build(values as readonly unknown[], true);
  }

  /**
   * The scan prefix of the records whose key starts with these values (the whole store for
   * none): the segments up to the last value given, and the fixed ones right after it, then `/`.
   */
  scanPrefix(values: readonly unknown[]): string {
    if (values.length > this.parts.length) throw new Error(`${this.owner}: ${values.length} key values given, the layout ${this.text} has ${this.parts.length}`);
    return this.build(values, false);
  }

  private build(values: readonly unknown[], whole: boolean): string {
    if (whole && values.length !== this.parts.length) throw new Error(`${this.owner}: ${this.text} takes ${this.parts.length} key values, ${values.length} given`);
    const out: string[] = [];
    let used = 0;
    for (const s of this.segments) {
      if (typeof s === 'string') {
        out.push(s);
        continue;
      }
      if (used === values.length) break;
      out.push(s.encode(values[used++]));
    }
    const text = out.join('/');
    return whole || out.length === this.segments.length ? text : `${text}/`;
  }

  /** The values of a key of this layout, or undefined when the key is not one. */
  parse(key: string): KeyValues<S> | undefined {
    const pieces = key.split('/');
    if (pieces.length !== this.segments.length) return undefined;
    const values: unknown[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const s = this.segments[i]!;
      const piece = pieces[i]!;
      if (typeof s === 'string') {
        if (piece !== s) return undefined;
      } else {
        if (!s.accepts(piece)) return undefined;
        values.push(s.decode(piece));
      }
    }
    return values as KeyValues<S>;
  }

  /**
   * Whether a raw key is a key of this layout: `parse` without decoding the values. Asked for every
   * key a plugin reads or writes, against each of its stores in turn (the plugin boundary), so a
   * key outside the fixed prefix is turned away before it is split.
   */
  holds(key: string): boolean {
    const p = this.prefix;
    if (!key.startsWith(p) || (key.length !== p.length && key.charCodeAt(p.length) !== SLASH)) return false;
    const pieces = key.split('/');
    if (pieces.length !== this.segments.length) return false;
    for (let i = 0; i < pieces.length; i++) {
      const s = this.segments[i]!;
      if (typeof s === 'string' ? pieces[i] !== s : !s.accepts(pieces[i]!)) return false;
    }
    return true;
  }

  /**
   * Whether a raw scan prefix stays inside this layout: its whole segments are ones the layout
   * accepts at their places, and there are fewer of them than the layout has (a partial last
   * segment must begin the fixed segment at its place; a partial typed one is not judged).
   */
  containsScan(prefix: string): boolean {
    const pieces = prefix.split('/');
    const partial = pieces.pop()!;
    if (pieces.length >= this.segments.length) return false;
    for (let i = 0; i < pieces.length; i++) {
      const s = this.segments[i]!;
      if (typeof s === 'string' ? pieces[i] !== s : !s.accepts(pieces[i]!)) return false;
    }
    const at = this.segments[pieces.length]!;
    // A scan that starts a segment ('' after the last /) covers the whole subtree; it must still begin somewhere in the layout.
    if (partial === '') return pieces.length > 0;
    return typeof at === 'string' ? at.startsWith(partial) : true;
  }

  /** Whether some key could belong to both layouts (two stores of one plugin must not). */
  overlaps(other: KeyLayout): boolean {
    if (other.segments.length !== this.segments.length) return false;
    return this.segments.every((a, i) => {
      const b = other.segments[i]!;
      if (typeof a === 'string' && typeof b === 'string') return a === b;
      if (typeof a === 'string') return (b as KeyPart<unknown>).accepts(a);
      if (typeof b === 'string') return a.accepts(b);
      return true;
    });
  }
}
