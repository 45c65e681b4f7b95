import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { startNodeProcess, postJson, waitConfirmed } from '../helpers/node-process.js';
import { wallet } from '../helpers/chain-fixture.js';
import { WsClient, freePort, startGatewayProcess } from '../../plugins/gateway/testing/process.js';

/**
 * Part 2, Events: "Clients should reconnect after close with exponentially growing delay." A
 * client doing exactly that across a gateway restart gets init again, then new_block from where
 * the chain is, and its balance subscription works again.
 */
test('a client that reconnects after the gateway restarts resumes', async () => {
  const node = await startNodeProcess({ env: { CHAIN_RPC_RATE_LIMIT: '0' } });
  const port = await freePort();
  const env = { NODE_RPC_URL: node.url, PORT: String(port) };
  let gw = await startGatewayProcess(env);
  const alice = wallet(61);
  try {
    const first = await WsClient.connect(`ws://127.0.0.1:${port}/ws`);
    await first.next('init', (m) => m.type === 'init');
    const before = await first.nextNew('a new_block', (m) => m.type === 'new_block');
    const closed = once(first.ws, 'close');
    await gw.stop();
    await closed;

    // Reconnect with exponentially growing delay while the gateway is down, as the spec tells clients.
    const restarting = startGatewayProcess(env).then((g) => (gw = g));
    let delay = 50;
    let again: WsClient | null = null;
    while (!again) {
      try {
        again = await WsClient.connect(`ws://127.0.0.1:${port}/ws`);
      } catch {
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 2000);
      }
    }
    await restarting;
    const init = await again.next('init after reconnect', (m) => m.type === 'init');
    assert.ok(((init.data as { height: number }).height) >= ((before.data as { height: number }).height));
    const next = await again.nextNew('new_block after reconnect', (m) => m.type === 'new_block');
    assert.ok((next.data as { height: number }).height > (before.data as { height: number }).height);

    again.ws.send(JSON.stringify({ type: 'subscribe_balance', address: alice.address }));
    await again.next('balance at once', (m) => m.type === 'balance' && m.address === alice.address);
    const mark = again.received.length;
    const f = await postJson(`http://127.0.0.1:${port}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    await waitConfirmed(node.url, f.body.tx_hash as string);
    const credited = await again.next('balance after the credit', (m) => m.type === 'balance' && m.address === alice.address && (m.balance as number) > 0, 15_000, mark);
    assert.equal(credited.balance, 50_000_000);
    again.ws.close();
  } finally {
    await gw.stop();
    await node.stop();
  }
});
