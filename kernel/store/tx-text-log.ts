import { constants } from 'node:fs';
import { mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Where a transaction's text lies in the log: 12 bytes in the store's transaction record. */
export interface TextPointer {
  readonly segment: number;
  readonly offset: number;
  readonly length: number;
}

/** The end of the log as the store last committed it; everything after it is an orphan. */
export interface LogPosition {
  readonly segment: number;
  readonly offset: number;
}

export const LOG_START: LogPosition = { segment: 0, offset: 0 };
export const POINTER_BYTES = 12;

/**
 * Transaction texts (about 10.6 KB of the 13 KB a transfer writes) kept out of LevelDB in an
 * append-only log. In LevelDB every byte is written again by each compaction it passes through,
 * and the four validators of a devnet, fed the same blocks, start their compactions within
 * 100 ms of each other, which made the latency tail. Texts never change once committed, so a log
 * that is only appended to and read by position serves them without rewriting.
 *
 * Crash order: `append` returns once the texts are on disk (fdatasync); only then does the store
 * write the batch that points at them and records the new end. A crash in between leaves texts
 * no record points at, and `truncateTo` cuts them off when the store opens.
 */
export interface TxTextLog {
  /** Writes the texts one after another, durably, and returns where each one is. */
  append(texts: readonly Uint8Array[]): Promise<TextPointer[]>;
  read(pointer: TextPointer): Promise<Uint8Array>;
  /** Where the next append starts. */
  readonly end: LogPosition;
  /** Drops everything after `position`; fails if the log holds less than that (texts lost). */
  truncateTo(position: LogPosition): Promise<void>;
  close(): Promise<void>;
}

export function encodePointer(p: TextPointer, out: Uint8Array, at: number): void {
  const view = new DataView(out.buffer, out.byteOffset + at, POINTER_BYTES);
  view.setUint32(0, p.segment);
  view.setUint32(4, p.offset);
  view.setUint32(8, p.length);
}

export function decodePointer(bytes: Uint8Array, at: number): TextPointer {
  if (bytes.length - at !== POINTER_BYTES) throw new Error(`store integrity: a text pointer of ${bytes.length - at} bytes, expected ${POINTER_BYTES}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, POINTER_BYTES);
  return { segment: view.getUint32(0), offset: view.getUint32(4), length: view.getUint32(8) };
}

/** Segments of at most this many bytes (a block's texts never straddle two). */
export const DEFAULT_SEGMENT_BYTES = 256 * 1024 * 1024;
const SEGMENT_NAME = /^(\d{8})\.txt$/;
const segmentName = (n: number): string => `${String(n).padStart(8, '0')}.txt`;

/** Open segment files beyond the one being appended to (reads of older blocks: catch-up, RPC). */
const MAX_OPEN_SEGMENTS = 8;

interface OpenSegment {
  readonly fh: Promise<FileHandle>;
  /** Reads and writes in flight: a segment is closed only when none is. */
  users: number;
}

/**
 * The log on disk: numbered segment files in one directory. The segment being appended to stays
 * open; older ones are opened for reads and closed least-recently-used beyond
 * `MAX_OPEN_SEGMENTS`, so descriptors stay bounded however long the chain grows.
 */
export class FileTxTextLog implements TxTextLog {
  /** In least- to most-recently used order (a Map keeps insertion order; a use re-inserts). */
  private readonly open = new Map<number, OpenSegment>();
  private position: LogPosition = LOG_START;
  /** Set once `truncateTo` has found the end; appending before that could overwrite texts. */
  private positioned = false;
  private appending = false;

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
  ) {}

  static async open(dir: string, options: { segmentBytes?: number } = {}): Promise<FileTxTextLog> {
    const made = await mkdir(dir, { recursive: true });
    // A directory just made needs its entry in the parent durable, as a new segment does.
    if (made !== undefined) {
      for (let d = dir; ; d = dirname(d)) {
        await syncDirectory(dirname(d));
        if (d === made || dirname(d) === d) break;
      }
    }
    return new FileTxTextLog(dir, options.segmentBytes ?? DEFAULT_SEGMENT_BYTES);
  }

  get end(): LogPosition {
    return this.position;
  }

  async truncateTo(position: LogPosition): Promise<void> {
    if (this.appending) throw new Error('transaction text log: truncateTo during an append');
    const segments = (await readdir(this.dir))
      .map((name) => SEGMENT_NAME.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of segments) {
      if (n > position.segment) {
        await this.closeSegment(n);
        await unlink(join(this.dir, segmentName(n)));
      }
    }
    if (position.offset > 0 || segments.includes(position.segment)) {
      await this.using(position.segment, false, async (fh) => {
        const { size } = await fh.stat();
        if (size < position.offset) throw new Error(`store integrity: transaction text segment ${segmentName(position.segment)} holds ${size} bytes, the store points up to ${position.offset}`);
        if (size > position.offset) {
          await fh.truncate(position.offset);
          await fh.datasync();
        }
      });
    }
    this.position = position;
    this.positioned = true;
  }

  async append(texts: readonly Uint8Array[]): Promise<TextPointer[]> {
    if (!this.positioned) throw new Error('transaction text log: append before truncateTo found the end');
    if (this.appending) throw new Error('transaction text log: appends must not overlap');
    this.appending = true;
    try {
      return await this.appendNow(texts);
    } finally {
      this.appending = false;
    }
  }

  private async appendNow(texts: readonly Uint8Array[]): Promise<TextPointer[]> {
    let total = 0;
    for (const t of texts) total += t.length;
    if (total === 0) return texts.map(() => ({ ...this.position, length: 0 }));
    if (total > this.segmentBytes) throw new Error(`transaction texts of ${total} bytes exceed a log segment (${this.segmentBytes})`);
    let { segment, offset } = this.position;
    if (offset + total > this.segmentBytes) {
      segment++;
      offset = 0;
    }
    const buf = Buffer.allocUnsafe(total);
    const pointers: TextPointer[] = [];
    let at = 0;
    for (const t of texts) {
      buf.set(t, at);
      pointers.push({ segment, offset: offset + at, length: t.length });
      at += t.length;
    }
    await this.using(segment, offset === 0, async (fh) => {
      let written = 0;
      while (written < total) written += (await fh.write(buf, written, total - written, offset + written)).bytesWritten;
      await fh.datasync();
    });
    // A new file's directory entry must be durable too, or a crash could drop the whole segment.
    if (offset === 0) await syncDirectory(this.dir);
    this.position = { segment, offset: offset + total };
    await this.closeIdle();
    return pointers;
  }

  async read(p: TextPointer): Promise<Uint8Array> {
    return this.using(p.segment, false, async (fh) => {
      const out = new Uint8Array(p.length);
      let got = 0;
      while (got < p.length) {
        const { bytesRead } = await fh.read(out, got, p.length - got, p.offset + got);
        if (bytesRead === 0) throw new Error(`store integrity: transaction text at ${segmentName(p.segment)}:${p.offset} is cut short`);
        got += bytesRead;
      }
      return out;
    });
  }

  async close(): Promise<void> {
    for (const n of [...this.open.keys()]) await this.closeSegment(n);
  }

  /** Runs `fn` on the segment's handle, opening it (creating it when `create`) if need be. */
  private async using<T>(segment: number, create: boolean, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
    let entry = this.open.get(segment);
    if (entry) this.open.delete(segment);
    else entry = { fh: this.openSegment(segment, create), users: 0 };
    this.open.set(segment, entry);
    entry.users++;
    try {
      return await fn(await entry.fh);
    } catch (e) {
      // A failed open must not stay cached as the segment's handle.
      if (this.open.get(segment) === entry && (await entry.fh.then(() => false, () => true))) this.open.delete(segment);
      throw e;
    } finally {
      entry.users--;
      await this.closeIdle();
    }
  }

  private async openSegment(segment: number, create: boolean): Promise<FileHandle> {
    try {
      // Read-write without O_APPEND: Linux ignores a positional write's offset on an O_APPEND file.
      return await open(join(this.dir, segmentName(segment)), create ? constants.O_RDWR | constants.O_CREAT : constants.O_RDWR);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`store integrity: transaction text segment ${segmentName(segment)} is missing from ${this.dir}`);
      throw e;
    }
  }

  /** Closes least-recently-used segments beyond the bound, never the one appended to or one in use. */
  private async closeIdle(): Promise<void> {
    if (this.open.size <= MAX_OPEN_SEGMENTS) return;
    const closing: Array<Promise<void>> = [];
    for (const [n, entry] of this.open) {
      if (this.open.size <= MAX_OPEN_SEGMENTS) break;
      if (n === this.position.segment || entry.users > 0) continue;
      this.open.delete(n);
      closing.push(entry.fh.then((fh) => fh.close()).catch(() => undefined));
    }
    await Promise.all(closing);
  }

  private async closeSegment(segment: number): Promise<void> {
    const entry = this.open.get(segment);
    if (!entry) return;
    this.open.delete(segment);
    await entry.fh.then((fh) => fh.close(), () => undefined);
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
