import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ChainError } from '../../kernel/sdk.js';
import { NodeClient } from './node-client.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** A loopback server that records what arrived and answers with `reply`. */
async function server(reply: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const s: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      reply(req, res);
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () =>
      new Promise<void>((r) => {
        s.close(() => r());
        s.closeAllConnections(); // the silent server's request is still open
      }),
  };
}

const json = (status: number, text: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
};

/** A port nothing listens on: a server bound, its port read, and closed. */
async function deadUrl(): Promise<string> {
  const s = await server(json(200, '{}'));
  await s.close();
  return s.url;
}

const log = pino({ level: 'silent' });

test('a POST forwards the client text byte for byte when given, else the body serialised', async () => {
  const s = await server(json(200, '{"tx_hash":"0xab","status":"pending"}'));
  const client = new NodeClient(2000, log);
  try {
    // Pretty-printed and with an integer beyond 2^53: what the client signed and sent, not a re-serialisation.
    const sent = '{\n  "value": 123456789012345678901,\n  "to": "b"\n}';
    const a = await client.request([s.url], 'POST', '/api/v1/transactions', JSON.parse(sent), sent);
    assert.deepEqual(a, { status: 200, body: { tx_hash: '0xab', status: 'pending' } });
    await client.request([s.url], 'POST', '/api/v1/faucet', { address: 'a' });
    assert.deepEqual(
      s.seen.map((x) => [x.method, x.url, x.contentType, x.body]),
      [
        ['POST', '/api/v1/transactions', 'application/json', sent],
        ['POST', '/api/v1/faucet', 'application/json', '{"address":"a"}'],
      ],
    );
  } finally {
    await client.close();
    await s.close();
  }
});

test("a node's error status and body come back unchanged, large integers exact; 204 and empty bodies are null", async () => {
  const s = await server((req, res) => {
    if (req.url === '/empty') {
      res.writeHead(204);
      res.end();
    } else json(400, '{"error":"bad value","max":123456789012345678901}')(req, res);
  });
  const client = new NodeClient(2000, log);
  try {
    assert.deepEqual(await client.request([s.url], 'GET', '/api/v1/x'), { status: 400, body: { error: 'bad value', max: 123456789012345678901n } });
    assert.deepEqual(await client.request([s.url], 'GET', '/empty'), { status: 204, body: null });
    assert.equal(s.seen[0]!.body, '', 'a GET carries no body');
  } finally {
    await client.close();
    await s.close();
  }
});

test('a dead or silent node is skipped for the next in the list; none answering is a 503, garbage a 502', async () => {
  const good = await server(json(200, '{"ok":true}'));
  const silent = await server(() => undefined); // accepts, never answers
  const garbage = await server((_req, res) => res.end('<html>'));
  const dead = await deadUrl();
  const client = new NodeClient(300, log);
  try {
    assert.deepEqual(await client.request([dead, silent.url, good.url], 'GET', '/h'), { status: 200, body: { ok: true } });
    // Both failures are remembered: the next request goes to the good node first.
    assert.deepEqual(await client.request([dead, silent.url, good.url], 'GET', '/h'), { status: 200, body: { ok: true } });
    assert.equal(silent.seen.length, 1, 'the silent node was asked once, then skipped while marked down');
    await assert.rejects(client.request([dead], 'GET', '/h'), (e: unknown) => e instanceof ChainError && e.status === 503 && /no node reachable/.test(e.message));
    await assert.rejects(client.request([garbage.url], 'GET', '/h'), (e: unknown) => e instanceof ChainError && e.status === 502);
  } finally {
    await client.close();
    await Promise.all([good, silent, garbage].map((s) => s.close()));
  }
});

test('the timeout bounds the whole answer: a node that trickles its body is cut off and the next one asked', async () => {
  const timers: NodeJS.Timeout[] = [];
  const trickle = await server((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"slow":');
    // One byte every 100 ms, never finishing within the client's 300 ms: an idle timer alone would not fire.
    timers.push(setInterval(() => res.write(' '), 100));
  });
  const good = await server(json(200, '{"ok":true}'));
  const client = new NodeClient(300, log);
  try {
    assert.deepEqual(await client.request([trickle.url, good.url], 'GET', '/h'), { status: 200, body: { ok: true } });
    assert.equal(trickle.seen.length, 1);
  } finally {
    for (const t of timers) clearInterval(t);
    await client.close();
    await Promise.all([trickle, good].map((s) => s.close()));
  }
});

test('a submission a node took and did not answer in time is not sent to the next node: 503, since the first may still admit it', async () => {
  const silent = await server(() => undefined); // takes the request, never answers
  const good = await server(json(200, '{"tx_hash":"0xab","status":"pending"}'));
  const dead = await deadUrl();
  const client = new NodeClient(300, log);
  try {
    await assert.rejects(
      client.request([silent.url, good.url], 'POST', '/api/v1/transactions', { to: 'b' }),
      (e: unknown) => e instanceof ChainError && e.status === 503 && /did not answer in time/.test(e.message) && /look the transaction up by its hash/.test(e.hint ?? ''),
    );
    assert.equal(silent.seen.length, 1);
    assert.equal(good.seen.length, 0, 'not sent again elsewhere');
    // A node that refused the connection never had it: the next one is asked.
    assert.deepEqual(await client.request([dead, good.url], 'POST', '/api/v1/transactions', { to: 'b' }), { status: 200, body: { tx_hash: '0xab', status: 'pending' } });
  } finally {
    await client.close();
    await Promise.all([silent, good].map((s) => s.close()));
  }
});

test('with a source address, every connection to a node leaves from it (what CHAIN_RPC_TRUSTED_IPS on the node matches)', async () => {
  const from: string[] = [];
  const s = await server((req, res) => {
    from.push(req.socket.remoteAddress ?? '');
    json(200, '{}')(req, res);
  });
  const client = new NodeClient(2000, log, '127.0.0.2');
  const plain = new NodeClient(2000, log);
  try {
    await client.request([s.url], 'GET', '/health');
    await plain.request([s.url], 'GET', '/health');
    assert.deepEqual(from, ['127.0.0.2', '127.0.0.1']);
  } finally {
    await client.close();
    await plain.close();
    await s.close();
  }
});
