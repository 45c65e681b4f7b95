import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import pino from 'pino';
import { createHttpServer } from './select-backend.js';
import { streamReply } from './respond.js';
import { loadUws } from './uws-native.js';

/** 3 000 lines of ~2 KB, produced one by one as the server asks for them. */
async function* lines(n: number): AsyncGenerator<string> {
  const pad = 'x'.repeat(2_000);
  for (let i = 1; i <= n; i++) yield JSON.stringify({ height: i, pad }) + '\n';
}

for (const backend of ['node', 'uws'] as const) {
  const skip = backend === 'uws' && !loadUws().ok ? 'uWebSockets.js unavailable' : false;
  test(`a streamed reply over HTTP (${backend}): chunked, every line arrives, a slow reader gets it all`, { skip }, async () => {
    const server = await createHttpServer({ host: '127.0.0.1', port: 0, corsAllowedOrigins: '', rateLimitPerSecond: 0, logger: pino({ level: 'silent' }), backend });
    server.route({ method: 'GET', path: '/export', handler: () => streamReply(lines(3_000), { contentType: 'application/x-ndjson; charset=utf-8' }) });
    const { port } = await server.listen();
    try {
      const { headers, lines } = await new Promise<{ headers: Record<string, unknown>; lines: number }>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path: '/export' }, (res) => {
          let n = 0;
          let rest = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            const parts = (rest + c).split('\n');
            rest = parts.pop()!;
            n += parts.length;
            // A slow reader: pause now and then so the server meets backpressure.
            if (n % 500 < 10) {
              res.pause();
              setTimeout(() => res.resume(), 5);
            }
          });
          res.on('end', () => resolve({ headers: res.headers, lines: n }));
          res.on('error', reject);
        })
          .on('error', reject)
          .end();
      });
      assert.equal(lines, 3_000);
      assert.match(String(headers['content-type']), /application\/x-ndjson/);
      assert.equal(headers['content-length'], undefined);
      assert.equal(headers['transfer-encoding'], 'chunked');
    } finally {
      await server.close();
    }
  });
}
