import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { startNodeProcess, getJson } from '../test/helpers/node-process.js';
import { startGatewayProcess } from '../plugins/gateway/testing/process.js';
import { tempDir } from '../test/helpers/temp-dir.js';

/**
 * Gateway throughput beside a bare server of the same HTTP backend, measured in the same run:
 * cached GET /api/v1/blocks/:height and GET /health requests per second (autocannon), and the
 * time to fan one new_block message out to 1 000 WebSocket subscribers. Prints gateway/bare
 * ratios per backend.
 *
 *   node dist/bench/gateway.bench.js [--subscribers 1000] [--seconds 5] [--rounds 2]
 *     [--backends uws,node] [--kv-store redis://127.0.0.1:6379] [--cpu-prof DIR] [--bare-encoded]
 *
 * Each req/s figure is the best of `--rounds` runs of `--seconds`, gateway and bare alternating.
 * `--kv-store` is the gateway's KV_STORE_URL (default `memory`: the run does not depend on a
 * Redis happening to listen on 6379); `--cpu-prof DIR` writes a V8 CPU profile of each gateway
 * process to DIR (open it in Chrome DevTools) to see where a cached read's time goes;
 * `--bare-encoded` has the bare server send its block as bytes encoded once, as the gateway's
 * cache does, so the ratio is the cost of the gateway's own logic alone.
 */
const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SUBSCRIBERS = opt('subscribers', 1000);
const SECONDS = opt('seconds', 5);
const text = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const ROUNDS = opt('rounds', 2);
const BACKENDS = (text('backends') ?? 'uws,node').split(',');
const KV_STORE = text('kv-store') ?? 'memory';
const CPU_PROF = text('cpu-prof');
// The bare server sends its block as bytes encoded once, as the gateway's cache does (bench/bare-server.ts).
const BARE_ENCODED = args.includes('--bare-encoded');

async function rps(url: string): Promise<number> {
  const r = await autocannon({ url, connections: 50, pipelining: 1, duration: SECONDS });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

/**
 * req/s of the gateway's URL and the bare server's, measured alternately ROUNDS times each, the
 * best of each kept: on a shared machine a burst of someone else's work lands on one side of a
 * single sequential pair and moves the ratio by tens of percent.
 */
async function paired(gwUrl: string, bareUrl: string): Promise<[number, number]> {
  let gw = 0;
  let bare = 0;
  for (let i = 0; i < ROUNDS; i++) {
    gw = Math.max(gw, await rps(gwUrl));
    bare = Math.max(bare, await rps(bareUrl));
  }
  return [gw, bare];
}

async function openClients(wsUrl: string, n: number): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, n - i) }, () => new Promise<WebSocket>((res, rej) => {
        const ws = new WebSocket(wsUrl);
        ws.once('open', () => res(ws));
        ws.once('error', rej);
      })),
    );
    out.push(...batch);
  }
  return out;
}

/** ms from the first subscriber's receipt of a message of `type` to the last one's. */
function fanOut(clients: WebSocket[], type: string, trigger: () => Promise<void>): Promise<number> {
  return new Promise((res, rej) => {
    let first = 0;
    let got = 0;
    const onMsg = (raw: WebSocket.RawData): void => {
      if (!(raw.toString().includes(`"type":"${type}"`))) return;
      const now = performance.now();
      if (got === 0) first = now;
      if (++got === clients.length) {
        clients.forEach((c) => c.off('message', onMsg));
        res(now - first);
      }
    };
    clients.forEach((c) => c.on('message', onMsg));
    trigger().catch(rej);
  });
}

async function startBare(backend: string, blockFile: string): Promise<{ url: string; stop: () => void }> {
  const proc = spawn(process.execPath, [resolve('dist/bench/bare-server.js')], { env: { ...process.env, BARE_BLOCK_FILE: blockFile, CHAIN_HTTP_BACKEND: backend, BARE_ENCODED: BARE_ENCODED ? '1' : '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((res) => createInterface({ input: proc.stdout! }).on('line', (l) => {
    const m = /"port":(\d+)/.exec(l);
    if (m) res(Number(m[1]));
  }));
  return { url: `http://127.0.0.1:${port}`, stop: () => void proc.kill('SIGTERM') };
}

/**
 * The node's block at `height` once it is committed. Asked right after start-up, the node may not
 * have committed it yet: the bare server would then serve the 43-byte 404 body as its "block" while
 * the gateway serves the real one, which flattered the bare side (the runs before 2026-11-29).
 */
async function committedBlock(nodeUrl: string, height: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await getJson(`${nodeUrl}/api/v1/blocks/${height}`);
    if (r.status === 200) return r.body;
    if (Date.now() > deadline) throw new Error(`block ${height} not committed after 30 s: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const node = await startNodeProcess({ env: { CHAIN_RPC_RATE_LIMIT: '0', CHAIN_EMPTY_BLOCK_MS: '1000' } });
const rows: Array<Record<string, string>> = [];
try {
  const block = await committedBlock(node.url, 1);
  const blockFile = join(tempDir('gwbench-'), 'block.json');
  writeFileSync(blockFile, JSON.stringify(block));
  for (const backend of BACKENDS) {
    const profiling = CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF)}`, `--cpu-prof-name=gateway-${backend}-${Date.now()}.cpuprofile`];
    const gw = await startGatewayProcess({ NODE_RPC_URL: node.url, CHAIN_HTTP_BACKEND: backend, GLOBAL_RL_MAX_RPS: '100000000', POLL_NODE_INTERVAL_MS: '200', KV_STORE_URL: KV_STORE }, profiling);
    const bare = await startBare(backend, blockFile);
    try {
      await getJson(`${gw.url}/api/v1/blocks/1`); // warm the cache
      const [gwBlock, bareBlock] = await paired(`${gw.url}/api/v1/blocks/1`, `${bare.url}/api/v1/blocks/1`);
      const [gwHealth, bareHealth] = await paired(`${gw.url}/health`, `${bare.url}/health`);
      const gwClients = await openClients(`${gw.url.replace('http', 'ws')}/ws`, SUBSCRIBERS);
      const bareClients = await openClients(`${bare.url.replace('http', 'ws')}/ws`, SUBSCRIBERS);
      // The gateway fans out when its poller sees the next block; the bare server on request.
      const gwFan = await fanOut(gwClients, 'new_block', async () => undefined);
      const bareFan = await fanOut(bareClients, 'new_block', async () => void (await fetch(`${bare.url}/broadcast`, { method: 'POST' })));
      [...gwClients, ...bareClients].forEach((c) => c.terminate());
      rows.push({
        backend,
        kv_store: KV_STORE,
        bare_block: BARE_ENCODED ? 'encoded once' : 'serialised',
        'blocks/:height gw req/s': gwBlock.toFixed(0),
        'bare req/s': bareBlock.toFixed(0),
        'ratio ': (gwBlock / bareBlock).toFixed(2),
        'health gw req/s': gwHealth.toFixed(0),
        'bare req/s ': bareHealth.toFixed(0),
        ratio: (gwHealth / bareHealth).toFixed(2),
        [`fan-out to ${SUBSCRIBERS} gw ms`]: gwFan.toFixed(1),
        'bare ms': bareFan.toFixed(1),
        'fan-out ratio': (gwFan / Math.max(bareFan, 0.001)).toFixed(2),
      });
      console.log(rows[rows.length - 1]);
    } finally {
      bare.stop();
      await gw.stop();
    }
  }
  console.table(rows);
} finally {
  await node.stop();
}
