import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isChainError } from '../../../kernel/sdk.js';
import { Secret } from '../config.js';
import { fillParamsFromPrompt, MAX_REPLY_BYTES, readCapped } from './llm-params.js';

test('readCapped reads a reply up to the cap and stops past it', async () => {
  assert.equal(await readCapped(new Response('x'.repeat(100)), 100), 'x'.repeat(100));
  assert.equal(await readCapped(new Response('x'.repeat(101)), 100), undefined);
  assert.equal(await readCapped(new Response(null), 100), '');
});

test('a provider that answers more than MAX_REPLY_BYTES is refused (502) without reading the rest; a small answer gives its fields', async (t) => {
  let huge = true;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (!huge) return res.end(JSON.stringify({ choices: [{ message: { content: '{"kind":"token","name":"A","symbol":"A","decimals":0,"total_supply":1,"code":"x"}' } }] }));
    // Streams far more than the cap: the gateway must stop reading.
    const chunk = 'y'.repeat(16 * 1024);
    let sent = 0;
    const more = (): void => {
      while (sent < 64 * MAX_REPLY_BYTES) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => undefined);
    more();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const provider = { apiKey: new Secret('sk-test'), url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`, model: 'm', timeoutMs: 5_000 };
  await assert.rejects(fillParamsFromPrompt(provider, 'a token'), (e: unknown) => isChainError(e) && e.status === 502 && /longer than 65536 bytes/.test(e.message));
  huge = false;
  assert.deepEqual(await fillParamsFromPrompt(provider, 'a token'), { kind: 'token', name: 'A', symbol: 'A', decimals: 0, total_supply: 1 });
});
