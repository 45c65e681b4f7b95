/**
 * Picks the backend at startup: `options.backend`, else CHAIN_HTTP_BACKEND (uws | node | auto);
 * auto is node:http. uWebSockets.js is opt-in: the registry's build (20.30) closes a connection
 * without an answer on a method outside its nine and on a long request head arriving in pieces
 * (kernel/rpc/README.md, "Known differences"), and a public endpoint must answer every client;
 * the load bench measured no throughput difference between the two (docs/benchmarks.md). A
 * forced backend that cannot start is an error, not a silent fallback: whoever forced it wants
 * to know.
 */
import { createNodeBackend } from './node-backend.js';
import { resolveOptions } from './options.js';
import type { BackendName, HttpServer, ServerOptions } from './server.js';
import { createUwsBackend } from './uws-backend.js';
import { loadUws } from './uws-native.js';

export const BACKEND_ENV = 'CHAIN_HTTP_BACKEND';

export function requestedBackend(options: ServerOptions, env: NodeJS.ProcessEnv = process.env): { choice: BackendName | 'auto'; source: string } {
  if (options.backend !== undefined && options.backend !== 'auto') return { choice: options.backend, source: 'options.backend' };
  const raw = (env[BACKEND_ENV] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'auto') return { choice: 'auto', source: 'auto' };
  if (raw === 'uws' || raw === 'node') return { choice: raw, source: `${BACKEND_ENV}=${raw}` };
  throw new Error(`${BACKEND_ENV} must be uws, node or auto, got '${env[BACKEND_ENV] ?? ''}'`);
}

/** Builds (does not start) a server; read `.backend` / `.backendReason` to log the choice. */
export async function createHttpServer(options: ServerOptions): Promise<HttpServer> {
  const { choice, source } = requestedBackend(options);
  const resolved = resolveOptions(options);
  if (choice === 'node') return createNodeBackend(resolved, `node:http + ws (forced by ${source})`);
  if (choice === 'auto') return createNodeBackend(resolved, 'node:http + ws (auto; CHAIN_HTTP_BACKEND=uws opts into uWebSockets.js)');
  const loaded = loadUws();
  if (loaded.ok) return createUwsBackend(loaded.uws, resolved, `uWebSockets.js from ${loaded.file} (forced by ${source})`);
  throw new Error(`uWebSockets.js backend forced by ${source} but unavailable: ${loaded.reason}`);
}
