import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { LastSignedGuard } from '../consensus/last-signed-guard.js';
import { DoubleSignRefusedError, type LocalPrivValidator } from '../consensus/priv-validator.js';
import type { BlockCodec, Vote } from '../consensus/index.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { ConsensusWal } from './consensus-wal.js';
import type { FetchedTxs } from './fetched-txs.js';
import { SIGN_STATE_FILE, guardFromText, openPrivValidator } from './sign-state-file.js';
import { Wal } from './wal.js';
import { patternedBytes as patterned } from '../../test/helpers/prng.js';

/**
 * Disk faults (issue 39): the consensus WAL and the last-signed record cut short at every byte
 * offset of their last record, and with every bit of it flipped. The node either recovers (the
 * WAL drops the damaged entry and replays those before it) or refuses to start with a message
 * naming the file (the last-signed record: without it the key cannot know what it signed), and
 * in no case signs a second, different message for a slot it signed. FAULTS_FULL=1 (npm run
 * test:faults) flips every bit of the last-signed record, not only its structure.
 */

const FULL = process.env.FAULTS_FULL === '1';
const CHAIN = 'disk-faults';
const ADDRESS = 'chain:validator-0.node';
const KEYS = nobleProvider.keygen(new Uint8Array(32).fill(7));
const HEIGHT = 7;

/** Memory-backed where there is one: thousands of cases each fsync, and the faults are made by hand. */
const BASE = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(BASE, 'disk-faults-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function vote(type: Vote['type'], round: number, fill: number | null): Vote {
  return { type, height: HEIGHT, round, blockHash: fill === null ? null : new Uint8Array(32).fill(fill), validator: ADDRESS };
}

function open(dir: string): Promise<LocalPrivValidator> {
  return openPrivValidator({ dataDir: dir, address: ADDRESS, keyPair: KEYS, provider: nobleProvider });
}

/** A validator that prevoted and precommitted block 1 in round 0 and prevoted nil in round 1: its record on disk. */
async function signedRecord(dir: string): Promise<string> {
  const pv = await open(dir);
  await pv.signVote(CHAIN, vote('prevote', 0, 1));
  await pv.signVote(CHAIN, vote('precommit', 0, 1));
  await pv.signVote(CHAIN, vote('prevote', 1, null));
  return readFile(join(dir, SIGN_STATE_FILE), 'utf8');
}

/** The votes that would be double signs after the record above: another block, or a slot behind the last. */
const CONFLICTS: readonly Vote[] = [vote('prevote', 0, 2), vote('precommit', 0, 2), vote('precommit', 0, null), vote('prevote', 1, 3)];

/** What a record restored from damaged text does: refuses naming the file, or still refuses every conflict. */
function assertNoDoubleSign(text: string, path: string, what: string): 'refused' | 'recovered' {
  let guard: LastSignedGuard;
  try {
    guard = guardFromText(text, path);
  } catch (e) {
    assert.ok((e as Error).message.includes(path), `${what}: the refusal names the file: ${(e as Error).message}`);
    return 'refused';
  }
  for (const v of CONFLICTS) {
    const probe = { ...v, validator: ADDRESS };
    const bytes = new TextEncoder().encode(`${probe.type}|${probe.round}|${probe.blockHash?.[0] ?? 'nil'}`);
    assert.equal(guard.check(HEIGHT, probe.round, probe.type, bytes).kind, 'refuse', `${what}: ${probe.type} round ${probe.round} would be signed again`);
  }
  return 'recovered';
}

test('the last-signed record cut at every byte offset: the node refuses to start, naming the file', async () => {
  await withDir(async (dir) => {
    const text = await signedRecord(dir);
    const path = join(dir, SIGN_STATE_FILE);
    for (let at = 0; at < text.length; at++) assert.equal(assertNoDoubleSign(text.slice(0, at), path, `cut at ${at}`), 'refused', `cut at ${at} of ${text.length}`);
    assert.equal(assertNoDoubleSign(text, path, 'whole'), 'recovered');
    // The same through the file the node opens, at a few offsets.
    for (const at of [0, 1, text.length >> 1, text.length - 1]) {
      await writeFile(path, text.slice(0, at));
      await assert.rejects(open(dir), (e: Error) => e.message.includes(path) && /refusing to sign/.test(e.message), `cut at ${at}`);
    }
  });
});

test(`the last-signed record with a bit flipped (${FULL ? 'every bit' : 'every bit of its structure and the head of each hex field'}): refused naming the file, never a second signature`, async () => {
  await withDir(async (dir) => {
    const text = await signedRecord(dir);
    const path = join(dir, SIGN_STATE_FILE);
    const bytes = Buffer.from(text, 'utf8');
    // Past its first 16 digits a long hex field (a 3 309-byte signature) is more of the same
    // class of byte: the normal suite flips those heads, the full run every bit.
    const inLongHexTail = new Uint8Array(bytes.length);
    for (const m of text.matchAll(/[0-9a-f]{64,}/g)) inLongHexTail.fill(1, m.index + 16, m.index + m[0].length);
    const outcomes = { refused: 0, recovered: 0 };
    for (let i = 0; i < bytes.length; i++) {
      if (!FULL && inLongHexTail[i] === 1) continue;
      for (let bit = 0; bit < 8; bit++) {
        const damaged = Buffer.from(bytes);
        damaged[i]! ^= 1 << bit;
        outcomes[assertNoDoubleSign(damaged.toString('utf8'), path, `byte ${i} bit ${bit}`)]++;
      }
    }
    // The checksum catches every single flip: none restores a guard at all.
    assert.equal(outcomes.recovered, 0);
    assert.ok(outcomes.refused > 1000, `${outcomes.refused} flips tried`);
  });
});

test('a record written before the checksum is still read, and the next signature adds one', async () => {
  await withDir(async (dir) => {
    const text = await signedRecord(dir);
    const { sha3: _sum, ...legacy } = JSON.parse(text) as Record<string, unknown>;
    const path = join(dir, SIGN_STATE_FILE);
    await writeFile(path, JSON.stringify(legacy));
    const pv = await open(dir);
    await assert.rejects(pv.signVote(CHAIN, vote('precommit', 0, 2)), DoubleSignRefusedError);
    await pv.signVote(CHAIN, vote('precommit', 1, null));
    assert.match(await readFile(path, 'utf8'), /,"sha3":"[0-9a-f]{64}"}$/);
    // A field the record does not have (what a flip in the name "sha3" makes) is refused.
    await writeFile(path, text.replace('"sha3"', '"shb3"'));
    await assert.rejects(open(dir), (e: Error) => e.message.includes(path));
  });
});


const ENTRIES = [patterned(120, 1), patterned(300, 2), patterned(60, 3)];

async function writeLog(path: string): Promise<{ lastStart: number; length: number }> {
  const { wal } = await Wal.open(path);
  for (const e of ENTRIES) await wal.append(e, true);
  const length = wal.bytes;
  await wal.close();
  return { lastStart: length - 8 - ENTRIES[2]!.length, length };
}

/** Opens the damaged log: the entries before the last are all kept, byte for byte, the file is cut to them, and it takes appends that replay. */
async function assertRecovers(path: string, lastStart: number, what: string): Promise<void> {
  const { wal, entries } = await Wal.open(path);
  try {
    assert.deepEqual(entries.slice(0, 2), ENTRIES.slice(0, 2), what);
    assert.equal(entries.length, 2, `${what}: the damaged last entry is not replayed`);
    assert.equal((await stat(path)).size, lastStart, `${what}: cut back to the last whole entry`);
    await wal.append(patterned(10, 9), true);
  } finally {
    await wal.close();
  }
  const again = await Wal.open(path);
  await again.wal.close();
  assert.deepEqual(again.entries, [...ENTRIES.slice(0, 2), patterned(10, 9)], `${what}: an entry appended after the cut replays`);
}

test('the WAL cut at every byte offset of its last entry recovers the entries before it', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'consensus.wal');
    const { lastStart, length } = await writeLog(path);
    const whole = await readFile(path);
    for (let at = lastStart; at < length; at++) {
      await writeFile(path, whole.subarray(0, at));
      await assertRecovers(path, lastStart, `cut at ${at}`);
    }
  });
});

test('the WAL with any bit of its last entry flipped drops that entry and recovers the rest', async () => {
  await withDir(async (dir) => {
    const path = join(dir, 'consensus.wal');
    const { lastStart, length } = await writeLog(path);
    const whole = await readFile(path);
    for (let i = lastStart; i < length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const damaged = Buffer.from(whole);
        damaged[i]! ^= 1 << bit;
        await writeFile(path, damaged);
        await assertRecovers(path, lastStart, `byte ${i} bit ${bit}`);
      }
    }
  });
});

test('a precommit lost with the WAL tail is still bound by the last-signed record: no second precommit', async () => {
  await withDir(async (dir) => {
    const pv = await open(dir);
    const first = await pv.signVote(CHAIN, vote('precommit', 0, 1));
    // The WAL entry of that precommit is torn (the process died writing it); the record is not.
    const walPath = join(dir, 'consensus.wal');
    const { lastStart } = await writeLog(walPath);
    await writeFile(walPath, (await readFile(walPath)).subarray(0, lastStart + 3));
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }));
    const opened = await ConsensusWal.open(walPath, { codec: {} as BlockCodec, compactCodec: {} as BlockCodec, fetched: {} as FetchedTxs, log });
    await opened.wal.close();
    assert.equal(opened.entries.length, 2);
    assert.ok(lines.some((l) => l.includes(walPath) && l.includes('cut it off')), `the cut is logged naming the file: ${lines.join('')}`);
    const restarted = await open(dir);
    await assert.rejects(restarted.signVote(CHAIN, vote('precommit', 0, 2)), DoubleSignRefusedError);
    await assert.rejects(restarted.signVote(CHAIN, vote('precommit', 0, null)), DoubleSignRefusedError);
    const again = await restarted.signVote(CHAIN, vote('precommit', 0, 1));
    assert.deepEqual(again.signature, first.signature, 'the same precommit is answered with the recorded signature');
  });
});
