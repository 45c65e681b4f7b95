import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_WAL_ENTRY, Wal } from './wal.js';
import { patternedBytes as patterned } from '../../test/helpers/prng.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wal-test-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}


/** A log holding `entries`, the last one synced, closed again. */
async function writeLog(path: string, entries: readonly Uint8Array[]): Promise<void> {
  const { wal } = await Wal.open(path);
  for (const [i, e] of entries.entries()) await wal.append(e, i === entries.length - 1);
  await wal.close();
}

/** The entries a fresh open finds, with the handle closed again. */
async function entriesAt(path: string): Promise<Uint8Array[]> {
  const { wal, entries } = await Wal.open(path);
  await wal.close();
  return entries;
}

test('entries read back after reopening, byte for byte and in order, including a 2 MB one', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'consensus.wal');
    const entries = [patterned(1, 1), patterned(2_000_000, 2), patterned(300, 3)];
    const { wal } = await Wal.open(path);
    for (const [i, e] of entries.entries()) await wal.append(e, i === 1);
    assert.equal(wal.bytes, entries.reduce((n, e) => n + 8 + e.length, 0));
    await wal.close();
    const reopened = await Wal.open(path);
    assert.equal(reopened.truncatedBytes, 0);
    assert.deepEqual(reopened.entries, entries);
    // Appends continue after what is there.
    await reopened.wal.append(patterned(10, 4), true);
    await reopened.wal.close();
    assert.deepEqual(await entriesAt(path), [...entries, patterned(10, 4)]);
  });
});

test('a torn tail (the process died mid-write) is cut off and the entries before it are kept', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'consensus.wal');
    await writeLog(path, [patterned(100, 1), patterned(5_000, 2)]);
    const full = (await stat(path)).size;
    await truncate(path, full - 1);
    const opened = await Wal.open(path);
    assert.deepEqual(opened.entries, [patterned(100, 1)]);
    assert.equal(opened.truncatedBytes, 8 + 5_000 - 1);
    assert.equal((await stat(path)).size, 8 + 100, 'the torn entry is gone from the file');
    // The next append lands where the torn one was.
    await opened.wal.append(patterned(7, 3), true);
    await opened.wal.close();
    assert.deepEqual(await entriesAt(path), [patterned(100, 1), patterned(7, 3)]);
  });
});

test('an entry whose checksum does not match ends the replay there', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'consensus.wal');
    await writeLog(path, [patterned(50, 1), patterned(50, 2), patterned(50, 3)]);
    const bytes = await readFile(path);
    const at = 8 + 50 + 8 + 10; // a byte inside the second payload
    bytes[at] = bytes[at]! ^ 0xff;
    await writeFile(path, bytes);
    const opened = await Wal.open(path);
    assert.deepEqual(opened.entries, [patterned(50, 1)]);
    assert.equal(opened.truncatedBytes, 2 * (8 + 50));
    await opened.wal.close();
  });
});

test('an entry over the bound is refused before anything is written; reset empties the log', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'consensus.wal');
    const { wal } = await Wal.open(path);
    await wal.append(patterned(20, 1), true);
    await assert.rejects(wal.append(new Uint8Array(MAX_WAL_ENTRY + 1), false), /exceeds/);
    assert.equal((await stat(path)).size, 28);
    await wal.reset();
    assert.equal(wal.bytes, 0);
    await wal.append(patterned(9, 2), true);
    await wal.close();
    assert.deepEqual(await entriesAt(path), [patterned(9, 2)]);
  });
});

test('a write that fails part-way is cut back, so entries appended after it still replay', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'consensus.wal');
    const { wal } = await Wal.open(path);
    await wal.append(patterned(40, 1), true);
    type Writev = (buffers: readonly NodeJS.ArrayBufferView[], position?: number) => Promise<{ bytesWritten: number }>;
    const fh = (wal as unknown as { fh: { writev: Writev } }).fh;
    const writev = fh.writev.bind(fh);
    /** The handle writes only the first `bytes` of what it is given, then `after` decides the outcome. */
    const writeOnly = (bytes: number, after: (written: Promise<{ bytesWritten: number }>) => Promise<{ bytesWritten: number }>): Writev => {
      return (buffers, position) => after(writev([Buffer.concat(buffers.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength))).subarray(0, bytes)], position));
    };
    // The first 100 bytes of the next entry, then a failure as a full disk would give.
    fh.writev = writeOnly(100, async (written) => {
      await written;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    await assert.rejects(wal.append(patterned(500, 2), true), /ENOSPC/);
    assert.equal((await stat(path)).size, 8 + 40, 'the partial frame is gone');
    // A write that returns short is cut back the same way.
    fh.writev = writeOnly(30, (written) => written);
    await assert.rejects(wal.append(patterned(500, 3), true), /stopped after 30; cut back to 48 bytes/);
    assert.equal((await stat(path)).size, 8 + 40);
    fh.writev = writev;
    await wal.append(patterned(60, 4), true);
    assert.equal(wal.bytes, 8 + 40 + 8 + 60);
    await wal.close();
    const reopened = await Wal.open(path);
    assert.equal(reopened.truncatedBytes, 0);
    assert.deepEqual(reopened.entries, [patterned(40, 1), patterned(60, 4)]);
    await reopened.wal.close();
  });
});
