import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeClient } from './node-client.js';

test('a node that never answers is given up on after the request timeout', async () => {
  const server = createServer(() => undefined); // accepts, never answers
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  try {
    const { port } = server.address() as AddressInfo;
    const started = Date.now();
    await assert.rejects(new NodeClient(`http://127.0.0.1:${port}`, 200).get('/api/v1/status'), /did not answer GET \/api\/v1\/status within 200 ms/);
    assert.ok(Date.now() - started < 5_000);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((res) => server.close(() => res()));
  }
});
