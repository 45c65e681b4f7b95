import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CLI, getJson } from '../helpers/node-process.js';
import { freePortBlock } from '../helpers/cluster.js';
import { tempDir } from '../helpers/temp-dir.js';

test('chain devnet: 4 validators and a gateway on loopback, ready line, clean stop on SIGTERM', async () => {
  const dir = tempDir('devnet-');
  // Validator i listens on base + i, so the launcher needs consecutive free ports.
  const base = await freePortBlock(21);
  const rpc = base;
  const p2p = base + 10;
  const gw = base + 20;
  const proc = spawn(process.execPath, [CLI, 'devnet', '--validators', '4', '--dir', dir, '--base-port', String(rpc), '--p2p-base-port', String(p2p), '--gateway-port', String(gw)], {
    env: { ...process.env, CHAIN_EMPTY_BLOCK_MS: '300', CHAIN_BLOCK_MS: '50' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
  await new Promise<void>((res, rej) => {
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      lines.push(l);
      if (l.includes('devnet ready')) res();
    });
    proc.stderr!.on('data', (d: Buffer) => lines.push(d.toString()));
    void exited.then((code) => rej(new Error(`devnet exited (${code}) before ready:\n${lines.join('\n')}`)));
  });
  try {
    assert.match(lines.join('\n'), /devnet ready: 4 validator\(s\) and a gateway, data in /);
    for (let i = 0; i < 4; i++) {
      const h = await getJson(`http://127.0.0.1:${rpc + i}/health`);
      assert.equal(h.body.validator_count, 4);
      assert.ok((h.body.height as number) >= 1);
    }
    const g = await getJson(`http://127.0.0.1:${gw}/health`);
    assert.equal(g.status, 200);
    assert.ok((g.body.height as number) >= 1);
  } finally {
    proc.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
  // Every process it started is gone: nothing answers on the ports any more.
  for (const port of [rpc, rpc + 3, gw]) {
    await assert.rejects(fetch(`http://127.0.0.1:${port}/health`));
  }
});
