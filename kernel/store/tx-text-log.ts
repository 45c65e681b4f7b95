import { constants } from 'node:fs';
import { mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

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

/**
 * The log on disk: numbered segment files in one directory. A segment's handle stays open once
 * used (one descriptor per 256 MiB of texts), so reads never race a close.
 */
export class FileTxTextLog implements TxTextLog {
  private readonly handles = new Map<number, FileHandle>();
  private position: LogPosition = LOG_START;

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
  ) {}

  static async open(dir: string, options: { segmentBytes?: number } = {}): Promise<FileTxTextLog> {
    await mkdir(dir, { recursive: true });
    return new FileTxTextLog(dir, options.segmentBytes ?? DEFAULT_SEGMENT_BYTES);
  }

  get end(): LogPosition {
    return this.position;
  }

  async truncateTo(position: LogPosition): Promise<void> {
    const segments = (await readdir(this.dir))
      .map((name) => SEGMENT_NAME.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of segments) {
      if (n > position.segment) {
        await this.closeHandle(n);
        await unlink(join(this.dir, segmentName(n)));
      }
    }
    if (position.offset > 0 || segments.includes(position.segment)) {
      const fh = await this.handle(position.segment, true);
      const { size } = await fh.stat();
      if (size < position.offset) throw new Error(`store integrity: transaction text segment ${segmentName(position.segment)} holds ${size} bytes, the store points up to ${position.offset}`);
      if (size > position.offset) {
        await fh.truncate(position.offset);
        await fh.datasync();
      }
    }
    this.position = position;
  }

  async append(texts: readonly Uint8Array[]): Promise<TextPointer[]> {
    let total = 0;
    for (const t of texts) total += t.length;
    if (total === 0) return texts.map(() => ({ ...this.position, length: 0 }));
    if (total > this.segmentBytes) throw new Error(`transaction texts of ${total} bytes exceed a log segment (${this.segmentBytes})`);
    let { segment, offset } = this.position;
    const rolling = offset + total > this.segmentBytes;
    if (rolling) {
      segment++;
      offset = 0;
    }
    const fh = await this.handle(segment, !rolling && offset > 0);
    const buf = Buffer.allocUnsafe(total);
    const pointers: TextPointer[] = [];
    let at = 0;
    for (const t of texts) {
      buf.set(t, at);
      pointers.push({ segment, offset: offset + at, length: t.length });
      at += t.length;
    }
    let written = 0;
    while (written < total) written += (await fh.write(buf, written, total - written, offset + written)).bytesWritten;
    await fh.datasync();
    // A new file's directory entry must be durable too, or a crash could drop the whole segment.
    if (rolling || (segment === 0 && offset === 0)) await this.syncDir();
    if (rolling) await this.closeHandle(this.position.segment);
    this.position = { segment, offset: offset + total };
    return pointers;
  }

  async read(p: TextPointer): Promise<Uint8Array> {
    const fh = await this.handle(p.segment, true);
    const out = new Uint8Array(p.length);
    let got = 0;
    while (got < p.length) {
      const { bytesRead } = await fh.read(out, got, p.length - got, p.offset + got);
      if (bytesRead === 0) throw new Error(`store integrity: transaction text at ${segmentName(p.segment)}:${p.offset} is cut short`);
      got += bytesRead;
    }
    return out;
  }

  async close(): Promise<void> {
    for (const n of [...this.handles.keys()]) await this.closeHandle(n);
  }

  private async handle(segment: number, mustExist: boolean): Promise<FileHandle> {
    let fh = this.handles.get(segment);
    if (!fh) {
      try {
        // Read-write without O_APPEND: Linux ignores a positional write's offset on an O_APPEND file.
        fh = await open(join(this.dir, segmentName(segment)), mustExist ? constants.O_RDWR : constants.O_RDWR | constants.O_CREAT);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`store integrity: transaction text segment ${segmentName(segment)} is missing from ${this.dir}`);
        throw e;
      }
      // Another open of the same segment may have raced this one.
      const raced = this.handles.get(segment);
      if (raced) {
        await fh.close();
        return raced;
      }
      this.handles.set(segment, fh);
    }
    return fh;
  }

  private async closeHandle(segment: number): Promise<void> {
    const fh = this.handles.get(segment);
    if (!fh) return;
    this.handles.delete(segment);
    await fh.close();
  }

  private async syncDir(): Promise<void> {
    const d = await open(this.dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  }
}
