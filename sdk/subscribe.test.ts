import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import { nodeSocket, Subscription } from './index.js';

/**
 * Reconnection as part 2 asks ("reconnect after close with exponentially growing delay"): a
 * server that drops the first connections sees the attempts come min, 2×min, 4×min… apart;
 * balance subscriptions are sent again on each new socket; a connection that served `init`
 * resets the delay.
 */
test('subscribe: growing delays between attempts, balance subscriptions renewed, delay reset once a connection served', async () => {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const port = (server.address() as { port: number }).port;
  const arrivals: number[] = [];
  const subscribes: string[] = [];
  let connections = 0;
  server.on('connection', (ws: ServerSocket) => {
    connections++;
    arrivals.push(Date.now());
    ws.on('message', (m) => {
      const msg = JSON.parse(String(m)) as { type: string; address: string };
      if (msg.type === 'subscribe_balance') {
        subscribes.push(`${connections}:${msg.address}`);
        ws.send(JSON.stringify({ type: 'balance', address: msg.address, balance: connections, balance_human: `${connections} COIN`, nonce: 0 }));
      }
    });
    // The first three connections are dropped at once; the fourth serves `init` and an event, then drops too.
    if (connections <= 3) setTimeout(() => ws.close(), 5);
    else if (connections === 4) {
      ws.send(JSON.stringify({ type: 'init', data: { height: 7 } }));
      ws.send(JSON.stringify({ type: 'new_block', data: { height: 8 } }));
      ws.send(JSON.stringify({ type: 'tx', data: {} }));
      setTimeout(() => ws.close(), 50);
    }
  });
  const events: string[] = [];
  const balances: number[] = [];
  const retries: number[] = [];
  const sub = new Subscription(`ws://127.0.0.1:${port}/ws`, nodeSocket, {
    balances: ['chain:aaaaaaaaaaaaaaa.human'],
    events: ['init', 'new_block'],
    onEvent: (e) => events.push(`${e.type}:${(e.data as { height: number }).height}`),
    onBalance: (b) => balances.push(b.balance),
    onConnection: (s) => s.retryInMs !== undefined && retries.push(s.retryInMs),
    minDelayMs: 40,
    maxDelayMs: 1000,
  });
  try {
    const deadline = Date.now() + 10_000;
    // Until the fifth socket's subscribe arrived, not only the socket: the server sees a connection
    // before the client's first message on it (once in CI the check ran in between).
    while (subscribes.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(connections >= 5, `reconnected ${connections} times`);
    // Dropped three times: 40, 80, 160 ms; after the connection that served init, 40 again.
    assert.deepEqual(retries.slice(0, 3), [40, 80, 160]);
    assert.equal(retries[3], 40, 'the delay starts again after a connection that served init');
    for (let i = 1; i < 3; i++) assert.ok(arrivals[i + 1]! - arrivals[i]! >= retries[i]! - 5, `attempt ${i + 1} waited its delay`);
    assert.deepEqual(events, ['init:7', 'new_block:8'], 'only the event types asked for');
    assert.deepEqual(subscribes.slice(0, 5), [1, 2, 3, 4, 5].map((c) => `${c}:chain:aaaaaaaaaaaaaaa.human`), 'the balance subscription is renewed on each socket');
    assert.ok(balances.includes(4));
    assert.equal(Subscription.delayOf(20, 500, 30_000), 30_000);
  } finally {
    sub.close();
    await new Promise((r) => server.close(r));
  }
});
