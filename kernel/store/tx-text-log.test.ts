import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTxTextLog, LOG_START, POINTER_BYTES, decodePointer, encodePointer } from './tx-text-log.js';

const text = (n: number, size = 100): Uint8Array => new TextEncoder().encode(`{"n":${n}}`.padEnd(size, ' '));

/** A log over an empty directory, its end found (as the store's open does), ready to append. */
async function freshLog(dir: string, segmentBytes?: number): Promise<FileTxTextLog> {
  const log = await FileTxTextLog.open(dir, segmentBytes === undefined ? {} : { segmentBytes });
  await log.truncateTo(LOG_START);
  return log;
}

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'txtext-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('TxTextLog: texts appended in batches read back by pointer, also after reopening at the recorded end', async (t) => {
  const dir = tempDir(t);
  const log = await freshLog(dir);
  const a = await log.append([text(1), text(2, 300)]);
  const b = await log.append([text(3, 7)]);
  assert.deepEqual(a, [{ segment: 0, offset: 0, length: 100 }, { segment: 0, offset: 100, length: 300 }]);
  assert.deepEqual(b, [{ segment: 0, offset: 400, length: 7 }]);
  assert.deepEqual(log.end, { segment: 0, offset: 407 });
  assert.deepEqual(await log.read(a[1]!), text(2, 300));
  const end = log.end;
  await log.close();

  const reopened = await FileTxTextLog.open(dir);
  await reopened.truncateTo(end);
  assert.deepEqual(await reopened.read(a[0]!), text(1));
  assert.deepEqual(await reopened.read(b[0]!), text(3, 7));
  const c = await reopened.append([text(4)]);
  assert.deepEqual(c, [{ segment: 0, offset: 407, length: 100 }], 'appends continue at the end');
  await reopened.close();
});

test('TxTextLog: texts past the recorded end (a block that never committed) are cut off on open', async (t) => {
  const dir = tempDir(t);
  const log = await freshLog(dir, 1000);
  await log.append([text(1, 600)]);
  const committed = log.end;
  await log.append([text(2, 600)]); // rolls into segment 1
  await log.append([text(3, 100)]);
  assert.deepEqual(log.end, { segment: 1, offset: 700 });
  await log.close();
  assert.deepEqual(readdirSync(dir).sort(), ['00000000.txt', '00000001.txt']);

  const reopened = await FileTxTextLog.open(dir, { segmentBytes: 1000 });
  await reopened.truncateTo(committed);
  assert.deepEqual(readdirSync(dir), ['00000000.txt'], 'the orphan segment is gone');
  assert.equal(statSync(join(dir, '00000000.txt')).size, 600);
  const next = await reopened.append([text(4, 600)]);
  assert.deepEqual(next, [{ segment: 1, offset: 0, length: 600 }], 'a batch that does not fit starts a new segment');
  await reopened.close();
});

test('TxTextLog: a log holding less than the store points at is an integrity error, not silent loss', async (t) => {
  const dir = tempDir(t);
  const log = await freshLog(dir, 1000);
  await log.append([text(1, 600)]);
  await log.append([text(2, 600)]);
  const end = log.end;
  await log.close();

  const short = await FileTxTextLog.open(dir, { segmentBytes: 1000 });
  await assert.rejects(short.truncateTo({ segment: 1, offset: 900 }), /store integrity: .*00000001\.txt holds 600 bytes, the store points up to 900/);
  await short.close();

  unlinkSync(join(dir, '00000001.txt'));
  const missing = await FileTxTextLog.open(dir, { segmentBytes: 1000 });
  await assert.rejects(missing.truncateTo(end), /store integrity: .*00000001\.txt is missing/);
  await assert.rejects(missing.read({ segment: 0, offset: 500, length: 200 }), /is cut short/);
  await missing.close();
});

test('TxTextLog: a batch larger than a segment is refused before anything is written', async (t) => {
  const dir = tempDir(t);
  const log = await freshLog(dir, 500);
  await assert.rejects(log.append([text(1, 300), text(2, 300)]), /600 bytes exceed a log segment \(500\)/);
  assert.deepEqual(log.end, LOG_START);
  await log.close();
});

test('TxTextLog: pointers encode to 12 bytes and back', () => {
  const out = new Uint8Array(3 + POINTER_BYTES);
  const p = { segment: 7, offset: 0xfffffff0, length: 10_612 };
  encodePointer(p, out, 3);
  assert.deepEqual(decodePointer(out, 3), p);
  assert.throws(() => decodePointer(out, 2), /text pointer of 13 bytes/);
});

test('TxTextLog: appending before the end is known, or two appends at once, is refused', async (t) => {
  const dir = tempDir(t);
  const log = await FileTxTextLog.open(dir);
  await assert.rejects(log.append([text(1)]), /append before truncateTo/);
  await log.truncateTo(LOG_START);
  const first = log.append([text(1)]);
  await assert.rejects(log.append([text(2)]), /appends must not overlap/);
  await first;
  assert.deepEqual(log.end, { segment: 0, offset: 100 });
  await log.close();
});

test('TxTextLog: texts in many segments all read back while open descriptors stay bounded', async (t) => {
  const dir = tempDir(t);
  const fds = (): number => readdirSync('/proc/self/fd').length;
  const log = await freshLog(dir, 250);
  const before = fds();
  const pointers = [];
  for (let n = 0; n < 30; n++) pointers.push(...(await log.append([text(n, 200)])));
  assert.equal(log.end.segment, 29, 'each 200-byte text fills its own 250-byte segment');
  const reads = await Promise.all(pointers.map((p) => log.read(p)));
  reads.forEach((r, n) => assert.deepEqual(r, text(n, 200)));
  assert.ok(fds() - before <= 8, `${fds() - before} descriptors held for 30 segments`);
  await log.close();
});
