import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { NodeClient } from './node-client.js';
import { ShardRouter } from './shard-router.js';
import { ProtocolParams } from './protocol-params.js';

test('protocol parameters are re-read every interval; a change is picked up, a failed read keeps the last values', async () => {
  let maxBlockGas = 10_000;
  let up = true;
  const server = createServer((req, res) => {
    if (!up || req.url !== '/api/v1/governance/params') {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ params: { max_block_gas: { value: maxBlockGas }, base_fee: { value: 1 } }, height: 7 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new NodeClient(2_000, pino({ level: 'silent' }));
  const params = new ProtocolParams(client, ShardRouter.fromConfig(url, undefined, undefined), 100, pino({ level: 'silent' }));
  try {
    assert.equal(params.value('max_block_gas'), undefined);
    await params.start();
    assert.equal(params.value('max_block_gas'), 10_000n);
    assert.equal(params.readAt(), 7);
    maxBlockGas = 20_000;
    // The next timed re-read brings the new value (awaited, not slept on).
    for (;;) {
      if (params.value('max_block_gas') === 20_000n) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    up = false;
    assert.equal(await params.refresh(), false);
    assert.equal(params.value('max_block_gas'), 20_000n, 'the last values stay');
  } finally {
    params.stop();
    await client.close();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
