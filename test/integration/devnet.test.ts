import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CLI, getJson } from '../helpers/node-process.js';
import { freePortBlock } from '../helpers/cluster.js';
import { tempDir } from '../helpers/temp-dir.js';
import { reapChildrenOnExit } from '../helpers/child-reaper.js';

test('chain devnet: 4 validators and a gateway on loopback, ready line, only the gateway exempt from the nodes\' rate limit (§93), clean stop on SIGTERM', async () => {
  // The launcher's validators are this file's grandchildren: a timed-out run must not leave them.
  reapChildrenOnExit();
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
    assert.match(lines.join('\n'), /devnet ready: 4 validator\(s\) and a gateway, chain devnet-[0-9a-f]{6}, data in /);
    for (let i = 0; i < 4; i++) {
      const h = await getJson(`http://127.0.0.1:${rpc + i}/health`);
      assert.equal(h.body.validator_count, 4);
      assert.ok((h.body.height as number) >= 1);
    }
    const g = await getJson(`http://127.0.0.1:${gw}/health`);
    assert.equal(g.status, 200);
    assert.ok((g.body.height as number) >= 1);

    // decisions.md §93: only the gateway (from 127.0.0.2) is exempt from the node's limit of 100
    // requests a second per IP. 150 requests at once from this local client meet it; 150 through
    // the gateway, each a different account so none is served from its cache, all reach the node.
    const statuses = async (urls: string[]): Promise<number[]> => Promise.all(urls.map(async (u) => (await fetch(u)).status));
    // The limit is per fixed one-second window (rate-limiter-flexible), so a burst that a loaded
    // machine stretches past a second meets a fresh window: at most 100 are served per window it
    // spans, and it is refused something only if more than 100 arrive within one. A burst that
    // spread that thin is sent again (each from a fresh window), up to 5 times.
    let refusedOnce = false;
    for (let attempt = 0; attempt < 5 && !refusedOnce; attempt++) {
      await new Promise((r) => setTimeout(r, 1_100)); // a window of its own, after the reads above or the last burst
      const burstStart = performance.now();
      const direct = await statuses(Array.from({ length: 150 }, () => `http://127.0.0.1:${rpc}/health`));
      const windows = Math.floor((performance.now() - burstStart) / 1000) + 1;
      const served = direct.filter((x) => x === 200).length;
      assert.ok(served <= 100 * windows, `${served} served over ${windows} one-second window(s)`);
      refusedOnce = direct.includes(429);
    }
    assert.ok(refusedOnce, 'a local client is limited: 150 requests at once met a 429 in one of 5 bursts');
    await new Promise((r) => setTimeout(r, 1_100)); // the node's one-second window
    const account = (i: number): string => `chain:${i.toString(16).padStart(15, '0')}.human`;
    const viaGateway = await statuses(Array.from({ length: 150 }, (_, i) => `http://127.0.0.1:${gw}/api/v1/accounts/${account(i + 1)}`));
    assert.deepEqual([...new Set(viaGateway)], [200], 'the gateway is exempt: every request reached the node and was answered');
  } finally {
    proc.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
  // Every process it started is gone: nothing answers on the ports any more.
  for (const port of [rpc, rpc + 3, gw]) {
    await assert.rejects(fetch(`http://127.0.0.1:${port}/health`));
  }
});
