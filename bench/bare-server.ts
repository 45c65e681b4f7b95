import { readFileSync } from 'node:fs';
import pino from 'pino';
import { createHttpServer, encodedReply, type WsConnection } from '../kernel/rpc/index.js';

/**
 * The baseline for the gateway benchmark: the same HTTP backend with no gateway logic, answering
 * the same bytes the gateway answers (a block read from a file, a health object with the gateway's
 * fields) and fanning a message out to every WebSocket client on request. Run as its own process,
 * like the gateway.
 *
 *   BARE_BLOCK_FILE=block.json CHAIN_HTTP_BACKEND=uws [BARE_ENCODED=1] node dist/bench/bare-server.js
 */
const block = JSON.parse(readFileSync(process.env.BARE_BLOCK_FILE!, 'utf8')) as unknown;
const clients = new Set<WsConnection>();
const server = await createHttpServer({
  host: '127.0.0.1',
  port: 0,
  corsAllowedOrigins: '*',
  rateLimitPerSecond: 0,
  backend: (process.env.CHAIN_HTTP_BACKEND as 'uws' | 'node' | undefined) ?? 'auto',
  logger: pino({ level: 'warn' }),
  ws: {
    path: '/ws',
    maxMessageBytes: 65536,
    handlers: {
      open: (c) => void clients.add(c),
      message: () => undefined,
      tooLarge: () => undefined,
      close: (c) => void clients.delete(c),
    },
  },
});
// BARE_ENCODED=1: the block's bytes encoded once, as the gateway's cache entries are, so the
// comparison measures only the gateway's own logic (without it the bare server serialises per request).
const encodedBlock = process.env.BARE_ENCODED === '1' ? encodedReply(200, block) : undefined;
server.route({ method: 'GET', path: '/api/v1/blocks/:height', handler: () => encodedBlock ?? block });
// The gateway's /health fields (part 1 and the gateway's own), built per request as the gateway builds its record.
let lastPollAt = Date.now();
server.route({
  method: 'GET',
  path: '/health',
  handler: () => ({ status: 'ok', network: 'chain-devnet-1', height: 10, peers: 0, round: 0, mempool: 0, node_reachable: true, node_status: 'ok', last_poll_at: lastPollAt, faucet_cooldown_store: 'off', ws_clients: clients.size }),
});
setInterval(() => (lastPollAt = Date.now()), 200).unref();
server.route({
  method: 'POST',
  path: '/broadcast',
  handler: () => {
    const text = JSON.stringify({ type: 'new_block', data: block });
    for (const c of clients) c.send(text);
    return { sent: clients.size };
  },
});
const { port } = await server.listen();
process.stdout.write(`bare server listening "port":${port} (${server.backend} backend)\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
