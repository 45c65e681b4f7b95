import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/**
 * Write-ahead log of consensus messages for the height in progress. Each entry is
 * `[length u32 BE][crc32 u32 BE][payload]`; an entry is fsynced before the validator acts on its
 * own vote, so after a crash the node replays exactly what it had said. A torn or corrupt tail
 * (the process died mid-write) ends the replay and is cut off; entries before it are trusted.
 */
export const MAX_WAL_ENTRY = 16 * 1024 * 1024;

export class Wal {
  private constructor(
    private readonly path: string,
    private fh: FileHandle,
    private size: number,
  ) {}

  /** Opens (creating) the log and returns it with the valid entries already in it. */
  static async open(path: string): Promise<{ wal: Wal; entries: Uint8Array[]; truncatedBytes: number }> {
    const fh = await open(path, 'a+');
    const data = await fh.readFile();
    const entries: Uint8Array[] = [];
    let off = 0;
    while (off + 8 <= data.length) {
      const len = data.readUInt32BE(off);
      const sum = data.readUInt32BE(off + 4);
      if (len > MAX_WAL_ENTRY || off + 8 + len > data.length) break;
      const payload = data.subarray(off + 8, off + 8 + len);
      if (crc32(payload) !== sum) break;
      entries.push(new Uint8Array(payload));
      off += 8 + len;
    }
    const truncatedBytes = data.length - off;
    if (truncatedBytes > 0) {
      await fh.truncate(off);
      await fh.sync();
    }
    return { wal: new Wal(path, fh, off), entries, truncatedBytes };
  }

  get bytes(): number {
    return this.size;
  }

  /** Appends one entry; with `sync`, returns only once it is on disk. */
  async append(payload: Uint8Array, sync: boolean): Promise<void> {
    if (payload.length > MAX_WAL_ENTRY) throw new Error(`WAL entry of ${payload.length} bytes exceeds ${MAX_WAL_ENTRY}`);
    const header = Buffer.allocUnsafe(8);
    header.writeUInt32BE(payload.length, 0);
    header.writeUInt32BE(crc32(payload), 4);
    const total = 8 + payload.length;
    // Header and payload go out in one writev: a proposal's texts are ~2 MB, and framing them in a
    // new zero-filled buffer cost a copy and a fill on the event loop of every validator at once.
    // The file is open for appending, so every write lands at its end whatever position is given;
    // `size` is where that end must be. A write that fails or stops short (a full disk) is cut
    // back before the error goes up: left in place, its partial frame would end the replay there
    // and hide every entry appended after it. A process that dies mid-write leaves a torn tail,
    // which open() cuts off.
    let written: number;
    try {
      written = (await this.fh.writev([header, payload], this.size)).bytesWritten;
    } catch (err) {
      await this.cutBack(err);
      throw err;
    }
    if (written !== total) {
      const short = new Error(`WAL write of ${total} bytes stopped after ${written}; cut back to ${this.size} bytes`);
      await this.cutBack(short);
      throw short;
    }
    this.size += total;
    if (sync) await this.fh.sync();
  }

  /** Drops whatever a failed append left past the last whole entry. */
  private async cutBack(cause: unknown): Promise<void> {
    try {
      await this.fh.truncate(this.size);
    } catch (err) {
      throw new Error(`WAL append failed and the log could not be cut back to ${this.size} bytes; entries appended after this would not replay`, { cause: [cause, err] });
    }
  }

  /** Starts the log afresh (a new height began; the previous height is in the block store). */
  async reset(): Promise<void> {
    await this.fh.truncate(0);
    await this.fh.sync();
    this.size = 0;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }

  toString(): string {
    return `Wal(${this.path})`;
  }
}
