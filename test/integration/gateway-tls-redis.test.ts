import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, startNodeProcess, until, type NodeHandle } from '../helpers/node-process.js';
import { freePort, startGatewayProcess, WsClient } from '../../plugins/gateway/testing/process.js';
import { redisProblem as cooldownStoreProblem } from '../../plugins/gateway/faucet-cooldown.js';
import { tempDir } from '../helpers/temp-dir.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Resolves to why Redis cannot be used, or undefined when it answers PING. */
async function redisProblem(url: string): Promise<string | undefined> {
  const problem = await cooldownStoreProblem(url);
  return problem === undefined ? undefined : `Redis unreachable at ${url} (${problem}); start one (redis-server) or set REDIS_URL`;
}

function httpsGet(url: string, ca: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    })
      .on('error', reject)
      .end();
  });
}

/** The gateway's cooldown store once it has connected: a loaded machine may take longer than the boot's bounded wait. */
async function redisStore(gwUrl: string): Promise<string> {
  return until('the gateway to reach Redis', async () => {
    const store = (await getJson(`${gwUrl}/health`)).body.faucet_cooldown_store as string;
    return store === 'redis' ? store : undefined;
  }, 15_000);
}

describe('gateway TLS and the Redis faucet-cooldown store', () => {
  let node: NodeHandle;
  const dir = tempDir('gw-tls-');
  before(async () => {
    node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '100000' } });
  });
  after(async () => {
    await node?.stop();
  });

  for (const backend of ['uws', 'node'] as const) {
    test(`TLS_CERT/TLS_KEY serve HTTPS and WSS (${backend} backend)`, async (t) => {
      const cert = join(dir, 'cert.pem');
      const key = join(dir, 'key.pem');
      const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { encoding: 'utf8' });
      if (gen.error || gen.status !== 0) return t.skip(`openssl could not make a self-signed pair: ${gen.error?.message ?? gen.stderr}`);
      const ca = readFileSync(cert);
      const gw = await startGatewayProcess({ NODE_RPC_URL: node.url, TLS_CERT: cert, TLS_KEY: key, CHAIN_HTTP_BACKEND: backend });
      try {
        assert.match(gw.url, /^https:/);
        const h = await httpsGet(`${gw.url}/health`, ca);
        assert.equal(h.status, 200);
        assert.equal(h.body.status, 'ok');
        const ws = await WsClient.connect(`${gw.url.replace('https', 'wss')}/ws`, { ca });
        try {
          assert.equal((await ws.next('init over wss', () => true)).type, 'init');
        } finally {
          ws.close();
        }
      } finally {
        await gw.stop();
      }
    });
  }

  test('cooldowns in Redis survive a gateway restart', async (t) => {
    const problem = await redisProblem(REDIS_URL);
    if (problem) {
      console.log(`# skipped: ${problem}`);
      return t.skip(problem);
    }
    const w = wallet(71);
    const other = wallet(72);
    const kv = new Redis(REDIS_URL);
    // Earlier runs against the same Redis left their reservations: start clean.
    await kv.del(`chain:gateway:faucet:address:${w.address}`, `chain:gateway:faucet:address:${other.address}`, 'chain:gateway:faucet:ip:127.0.0.1');
    kv.disconnect();
    const env = { NODE_RPC_URL: node.url, KV_STORE_URL: REDIS_URL, FAUCET_COOLDOWN_SECS: '30' };
    let gw = await startGatewayProcess(env);
    try {
      assert.equal(await redisStore(gw.url), 'redis');
      assert.equal((await postJson(`${gw.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex })).status, 200);
      await gw.stop();
      gw = await startGatewayProcess(env);
      await redisStore(gw.url);
      const again = await postJson(`${gw.url}/api/v1/faucet`, { address: other.address, public_key: other.publicKeyHex });
      assert.equal(again.status, 429, 'the IP reservation outlived the gateway process');
      assert.match(again.body.error as string, /faucet cooldown/);
    } finally {
      await gw.stop();
      const clean = new Redis(REDIS_URL);
      await clean.del(`chain:gateway:faucet:address:${w.address}`, 'chain:gateway:faucet:ip:127.0.0.1');
      clean.disconnect();
    }
  });

  test('Redis going away: the faucet keeps serving from memory and /health says so', async (t) => {
    const which = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
    if (which.error || which.status !== 0) {
      const why = 'redis-server is not installed (apt-get install -y redis-server), so this test cannot stop one';
      console.log(`# skipped: ${why}`);
      return t.skip(why);
    }
    const port = await freePort();
    const redis: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const url = `redis://127.0.0.1:${port}`;
    await until('private redis-server to answer', async () => ((await redisProblem(url)) === undefined ? true : undefined), 10_000);
    const gw = await startGatewayProcess({ NODE_RPC_URL: node.url, KV_STORE_URL: url, FAUCET_COOLDOWN_SECS: '30' });
    try {
      assert.equal(await redisStore(gw.url), 'redis');
      await new Promise<void>((r) => {
        redis.once('exit', () => r());
        redis.kill('SIGKILL');
      });
      const h = await until('health to notice Redis is gone', async () => {
        const r = await getJson(`${gw.url}/health`);
        return r.body.faucet_cooldown_store === 'memory (redis unavailable)' ? r : undefined;
      });
      assert.equal(h.status, 200, 'still healthy: the node is reachable');
      assert.equal(h.body.status, 'degraded');
      assert.match(h.body.warning as string, /Redis is unreachable/);
      const w = wallet(73);
      const f = await postJson(`${gw.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      assert.equal((await postJson(`${gw.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex })).status, 429, 'cooldown still enforced, in memory');
      assert.ok(gw.logs.some((l) => l.includes('Redis unavailable')), 'the fallback is logged');
    } finally {
      await gw.stop();
      if (redis.exitCode === null && redis.signalCode === null) redis.kill('SIGKILL');
    }
  });
});
