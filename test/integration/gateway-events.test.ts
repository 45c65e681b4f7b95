import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, startNodeProcess, until, waitConfirmed, type NodeHandle } from '../helpers/node-process.js';
import { startGatewayProcess, WsClient, type ProcessHandle } from '../../plugins/gateway/testing/process.js';

/**
 * Plugin events end to end, on each HTTP backend: a faucet credit applied by a real node is
 * stored with its block, read back through a real `chain gateway` (block events, the
 * transaction view) and relayed to a WebSocket client once, from the block, after its new_block.
 */
for (const backend of ['uws', 'node'] as const) {
  describe(`plugin events through the gateway (${backend} backend)`, () => {
    let node: NodeHandle;
    let gw: ProcessHandle;
    const carol = wallet(backend === 'uws' ? 81 : 82);

    before(async () => {
      node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: backend, CHAIN_RPC_RATE_LIMIT: '100000' } });
      gw = await startGatewayProcess({ NODE_RPC_URL: node.url, CHAIN_HTTP_BACKEND: backend, GLOBAL_RL_MAX_RPS: '100000' });
    });
    after(async () => {
      await gw?.stop();
      await node?.stop();
    });

    /** A socket client past its `init`, closed when `fn` is done. */
    async function withSocket(fn: (ws: WsClient) => Promise<void>): Promise<void> {
      const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
      try {
        await ws.next('init', (m) => m.type === 'init');
        await fn(ws);
      } finally {
        ws.close();
      }
    }

    test('a faucet credit\'s event: in GET /blocks/:h/events, on GET /transactions/:hash, and once on the socket', () =>
      withSocket(async (ws) => {
        const sent = await postJson(`${gw.url}/api/v1/faucet`, { address: carol.address, public_key: carol.publicKeyHex });
        assert.equal(sent.status, 200, JSON.stringify(sent.body));
        const txHash = sent.body.tx_hash as string;
        const data = { address: carol.address, amount: 50_000_000, tx_hash: txHash };

        const heard = await ws.next('the faucet event', (m) => m.type === 'faucet');
        assert.deepEqual(heard, { type: 'faucet', data }, 'part 2\'s message format: {type, data}');
        const tx = await waitConfirmed(gw.url, txHash);
        assert.equal(tx.status, 'confirmed');
        const height = tx.block as number;

        // Another transaction may share the block, so the credit's event is found by its hash and
        // its index is wherever the block put it; everything else about it is exact.
        const viaGateway = await getJson(`${gw.url}/api/v1/blocks/${height}/events`);
        assert.equal(viaGateway.status, 200);
        const blockEvents = viaGateway.body.events as Array<{ index: number; tx_hash?: string }>;
        assert.equal(viaGateway.body.height, height);
        assert.equal(viaGateway.body.total, blockEvents.length);
        assert.deepEqual(blockEvents.map((e) => e.index), blockEvents.map((_, i) => i), 'indexes count the block\'s events from 0');
        const own = blockEvents.filter((e) => e.tx_hash === txHash);
        assert.equal(own.length, 1, 'the credit emits one event');
        const stored = { height, index: own[0]!.index, tx_hash: txHash, phase: 'tx', type: 'faucet', data };
        assert.deepEqual(own, [stored]);
        assert.deepEqual(tx.events, [stored], 'the transaction view carries its own event');
        assert.deepEqual(await getJson(`${node.url}/api/v1/blocks/${height}/events`), viaGateway, 'the gateway serves the node\'s answer');
        assert.equal((await getJson(`${gw.url}/api/v1/blocks/${height + 1000}/events`)).status, 404);
        assert.equal((await getJson(`${gw.url}/api/v1/blocks/0/events`)).status, 400);

        // Relayed after its block's new_block, and only from the block: the forwarded call itself
        // announces nothing (plugins/gateway/README.md), so two more blocks bring no second copy.
        const blockAt = ws.received.findIndex((m) => m.type === 'new_block' && (m.data as { height: number }).height === height);
        assert.ok(blockAt >= 0 && blockAt < ws.received.indexOf(heard), 'new_block of the credit\'s height comes first');
        await ws.next(`new_block ${height + 2}`, (m) => m.type === 'new_block' && (m.data as { height: number }).height === height + 2);
        assert.equal(ws.received.filter((m) => m.type === 'faucet').length, 1);
      }));

    test('a credit sent to the node directly is announced by the gateway too', () =>
      withSocket(async (ws) => {
        const dave = wallet(backend === 'uws' ? 83 : 84);
        const sent = await postJson(`${node.url}/api/v1/faucet`, { address: dave.address, public_key: dave.publicKeyHex, amount: 7 });
        assert.equal(sent.status, 200, JSON.stringify(sent.body));
        const heard = await ws.next('the faucet event', (m) => m.type === 'faucet' && (m.data as { tx_hash: string }).tx_hash === sent.body.tx_hash);
        assert.deepEqual(heard.data, { address: dave.address, amount: 7, tx_hash: sent.body.tx_hash });
        await until('the credit on the gateway', async () => ((await getJson(`${gw.url}/api/v1/accounts/${dave.address}`)).body.balance === 7 ? true : undefined));
      }));
  });
}
