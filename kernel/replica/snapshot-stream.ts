/**
 * Reads a snapshot document (`snapshot.ts`'s JSON) as it arrives, without ever holding it whole:
 * the top-level fields other than `entries` are parsed one by one (a few KiB: the blocks and a
 * certificate), and each element of `entries` is handed over as soon as it is complete and then
 * dropped. Memory is one entry (or one field) plus the unread rest of one network chunk, whatever
 * the state's size. Any JSON layout is taken (the serving node writes an entry per line, but
 * nothing here depends on it); a document that is not an object, or whose `entries` is not an
 * array, is refused.
 */

/** The largest top-level field or single entry the reader buffers: far above any real one. */
export const SNAPSHOT_VALUE_MAX_CHARS = 16 * 1024 * 1024;

export interface SnapshotStreamSink {
  /** A top-level field other than `entries`, parsed. */
  field(name: string, value: unknown): void;
  /** One element of `entries`, parsed (its shape is the caller's to check). */
  entry(value: unknown): Promise<void> | void;
}

type Mode = 'open' | 'key' | 'colon' | 'value' | 'entries-open' | 'entry' | 'entry-after' | 'after' | 'end';

const WS = new Set([' ', '\n', '\r', '\t']);

/**
 * Where the JSON value starting at `start` ends (exclusive), or -1 when `text` stops before it
 * does. `start` is the value's first character. A number or literal ends at the first character
 * that cannot continue it, so at the end of `text` it is incomplete too.
 */
export function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first !== '{' && first !== '[') {
    const m = /[^0-9A-Za-z.+-]/g;
    m.lastIndex = start;
    const hit = m.exec(text);
    return hit ? hit.index : -1;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** End (exclusive) of the string whose opening quote is at `start`, or -1 if not in `text` yet. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let j = q - 1; j > start && text[j] === '\\'; j--) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

export class SnapshotStreamReader {
  private text = '';
  private pos = 0;
  private mode: Mode = 'open';
  private key = '';
  private firstEntry = false;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly sink: SnapshotStreamSink) {}

  /** Characters read but not yet handed over: at most one entry or field plus one chunk. */
  get bufferedChars(): number {
    return this.text.length - this.pos;
  }

  /** Takes the next bytes of the document; resolves once every complete entry in them is handed over. */
  async push(chunk: Uint8Array): Promise<void> {
    this.text = this.text.slice(this.pos) + this.decoder.decode(chunk, { stream: true });
    this.pos = 0;
    await this.drain();
    if (this.text.length - this.pos > SNAPSHOT_VALUE_MAX_CHARS) throw new Error(`snapshot: a field or entry longer than ${SNAPSHOT_VALUE_MAX_CHARS} characters`);
  }

  /** The document has ended: refuses it unless it was complete. */
  end(): void {
    this.text = this.text.slice(this.pos) + this.decoder.decode();
    this.pos = 0;
    this.skipWs();
    if (this.mode !== 'end' || this.pos < this.text.length) throw new Error('snapshot: the document ended early or has trailing bytes');
  }

  private skipWs(): void {
    while (this.pos < this.text.length && WS.has(this.text[this.pos]!)) this.pos++;
  }

  /** The next non-blank character, without taking it; undefined when more bytes are needed. */
  private peek(): string | undefined {
    this.skipWs();
    return this.text[this.pos];
  }

  private expect(c: string, what: string): void {
    if (this.text[this.pos] !== c) throw new Error(`snapshot: expected ${what} at character ${this.pos}, found ${JSON.stringify(this.text[this.pos])}`);
    this.pos++;
  }

  /** The complete value at the cursor, parsed and taken; undefined (nothing taken) when it is not all here yet. */
  private takeValue(): { value: unknown } | undefined {
    const end = valueEnd(this.text, this.pos);
    if (end < 0) return undefined;
    const value: unknown = JSON.parse(this.text.slice(this.pos, end));
    this.pos = end;
    return { value };
  }

  private async drain(): Promise<void> {
    for (;;) {
      const c = this.peek();
      if (c === undefined) return;
      switch (this.mode) {
        case 'open':
          this.expect('{', 'the snapshot object');
          this.mode = 'key';
          break;
        case 'key': {
          if (c === '}') {
            this.pos++;
            this.mode = 'end';
            break;
          }
          if (c !== '"') throw new Error(`snapshot: expected a field name at character ${this.pos}`);
          const taken = this.takeValue();
          if (!taken) return;
          this.key = taken.value as string;
          this.mode = 'colon';
          break;
        }
        case 'colon':
          this.expect(':', '":"');
          this.mode = this.key === 'entries' ? 'entries-open' : 'value';
          break;
        case 'value': {
          const taken = this.takeValue();
          if (!taken) return;
          this.sink.field(this.key, taken.value);
          this.mode = 'after';
          break;
        }
        case 'entries-open':
          this.expect('[', 'the entries array');
          this.mode = 'entry';
          this.firstEntry = true;
          break;
        case 'entry': {
          // `[]`: only before the first entry may the array close.
          if (c === ']' && this.firstEntry) {
            this.mode = 'entry-after';
            break;
          }
          this.firstEntry = false;
          const taken = this.takeValue();
          if (!taken) return;
          await this.sink.entry(taken.value);
          this.mode = 'entry-after';
          break;
        }
        case 'entry-after':
          if (c === ',') this.mode = 'entry';
          else this.expect(']', '"," or "]" after an entry');
          if (c === ',') this.pos++;
          else this.mode = 'after';
          break;
        case 'after':
          if (c === '}') this.mode = 'end';
          else if (c === ',') this.mode = 'key';
          else throw new Error(`snapshot: expected "," or "}" at character ${this.pos}`);
          this.pos++;
          break;
        case 'end':
          throw new Error('snapshot: bytes after the end of the document');
      }
    }
  }
}
