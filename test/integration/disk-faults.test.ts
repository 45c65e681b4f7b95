import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { wallet } from '../helpers/chain-fixture.js';
import { getJson, makeChainDir, postJson, startNodeProcess, until, type NodeHandle } from '../helpers/node-process.js';

/**
 * Disk faults through the real process (issue 39; the byte-by-byte cases are unit tests beside
 * the code, kernel/replica/disk-faults.test.ts): a damaged last-signed record keeps the node from
 * starting, with a message naming the file, and the restored one lets it resume; a data directory
 * on a small tmpfs that fills up during commits stops the node cleanly with the reason, and once
 * there is room again it restarts with every block it had committed.
 */

const SIGN_STATE = 'priv_validator_state.json';

async function headHeight(node: NodeHandle): Promise<number> {
  return (await getJson(`${node.url}/health`)).body.height as number;
}

async function blockHashes(node: NodeHandle, upTo: number): Promise<string[]> {
  const out: string[] = [];
  for (let h = 1; h <= upTo; h++) out.push((await getJson(`${node.url}/api/v1/blocks/${h}`)).body.hash as string);
  return out;
}

function exitOf(node: NodeHandle, timeoutMs: number): Promise<number | null | 'running'> {
  return new Promise((resolve) => {
    if (node.proc.exitCode !== null) return resolve(node.proc.exitCode);
    const timer = setTimeout(() => resolve('running'), timeoutMs);
    node.proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

test('a last-signed record with a flipped bit: the node refuses to start naming the file; restored, it resumes', async () => {
  const { dir } = makeChainDir();
  let node = await startNodeProcess({ dir });
  let height = 0;
  try {
    height = await until('three blocks', async () => ((await headHeight(node)) >= 3 ? headHeight(node) : undefined));
  } finally {
    await node.stop();
  }
  const path = join(dir, 'data', SIGN_STATE);
  const good = readFileSync(path);
  const damaged = Buffer.from(good);
  damaged[damaged.length >> 1]! ^= 0x04;
  writeFileSync(path, damaged);
  // The RPC may come up before block production opens the record: either way the process exits 1.
  const refused = await startNodeProcess({ dir }).then(
    async (n) => ({ code: await exitOf(n, 30_000), output: n.logs.join('\n') }),
    (e: Error) => ({ code: /exited \(1\) before listening/.test(e.message) ? 1 : e.message, output: e.message }),
  );
  assert.equal(refused.code, 1, `the node must not start on a damaged record: ${refused.output.slice(-1500)}`);
  assert.ok(refused.output.includes(path) && /last-signed record/.test(refused.output), refused.output.slice(-1500));
  writeFileSync(path, good);
  node = await startNodeProcess({ dir });
  try {
    assert.ok((await headHeight(node)) >= height, 'no committed block lost');
    await until('the chain to go on', async () => ((await headHeight(node)) > height ? true : undefined));
  } finally {
    await node.stop();
  }
});

describe('a full disk during commits', () => {
  let unavailable: string | undefined;
  let dir = '';
  let data = '';
  before(() => {
    dir = makeChainDir().dir;
    data = join(dir, 'data');
    mkdirSync(data, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', data], { stdio: 'pipe' });
    } catch (e) {
      unavailable = `cannot mount a tmpfs data directory here (needs root and mount): ${(e as Error).message.split('\n')[0]}`;
    }
  });
  after(() => {
    if (unavailable === undefined) execFileSync('umount', ['-l', data]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('the node stops cleanly with the reason and, with room again, restarts with every committed block', async (t) => {
    if (unavailable !== undefined) return t.skip(unavailable);
    let node = await startNodeProcess({ dir });
    let committed: string[] = [];
    const filler = join(data, 'filler');
    try {
      const h = await until('three blocks', async () => ((await headHeight(node)) >= 3 ? headHeight(node) : undefined));
      committed = await blockHashes(node, h);
      // Fill the disk to the last block, then give the node something to commit.
      const fd = openSync(filler, 'w');
      try {
        for (const size of [1 << 20, 4096, 512]) {
          try {
            for (;;) writeSync(fd, Buffer.alloc(size));
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          }
        }
      } finally {
        closeSync(fd);
      }
      for (let i = 0; i < 20; i++) {
        const w = wallet(220 + i);
        void postJson(`${node.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex, amount: 1 }).catch(() => undefined);
      }
      const code = await exitOf(node, 30_000);
      assert.equal(code, 1, `the node should stop (exit 1) on a full disk; it is ${code === 'running' ? 'still running' : `exited ${String(code)}`}`);
      const logs = node.logs.join('\n');
      assert.ok(logs.includes(`the disk holding ${data} is full`), `the reason is logged: ${logs.slice(-1500)}`);
    } finally {
      if (node.proc.exitCode === null) await node.kill();
    }
    rmSync(filler, { force: true });
    node = await startNodeProcess({ dir });
    try {
      const h = await headHeight(node);
      assert.ok(h >= committed.length, `restarted at ${h}, below the ${committed.length} blocks committed before the disk filled`);
      assert.deepEqual(await blockHashes(node, committed.length), committed, 'the blocks committed before the fault are the same blocks');
      await until('the chain to go on', async () => ((await headHeight(node)) > h ? true : undefined));
    } finally {
      await node.stop();
    }
  });
});
