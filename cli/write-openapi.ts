/**
 * `npm run openapi`: writes the API reference clients read (decisions.md §87) from the real
 * processes, not from a copy of their routes: a one-validator devnet node (the devnet config and
 * its plugins) and a gateway in front of it run in this process on loopback, and their
 * `/api/v1/openapi.json` documents are written to `docs/openapi.json` (node) and
 * `docs/openapi-gateway.json` (gateway). `--check` writes nothing and exits 1 when a committed
 * file differs from the fresh one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../kernel/config/load.js';
import { startNode } from '../kernel/node/node.js';
import { prepareDevnet } from '../devnet/launcher.js';
import { PLUGIN_CATALOGUE } from '../plugins/index.js';
import { loadGatewayConfig } from '../plugins/gateway/config.js';
import { startGateway } from './gateway-process.js';

export const OPENAPI_FILES = { node: 'docs/openapi.json', gateway: 'docs/openapi-gateway.json' } as const;

/** The two documents as `npm run openapi` writes them (2-space JSON, final newline). */
export async function freshApiDocuments(): Promise<{ node: string; gateway: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  const env: NodeJS.ProcessEnv = { CHAIN_LOG_LEVEL: 'error' };
  try {
    const files = prepareDevnet({ validators: 1, dir, reset: false, p2pEndpoint: () => '127.0.0.1:1' });
    const config = loadConfig({ network: 'devnet', configDir: resolve('configs'), env, flags: { data_dir: join(dir, 'data'), genesis_file: files.genesisFile, key_file: files.keyFiles[0]!, rpc: { host: '127.0.0.1', port: 0 }, p2p: { host: '127.0.0.1', port: 0 }, log_level: 'error' } });
    const node = await startNode(config, PLUGIN_CATALOGUE);
    try {
      const gatewayPort = await freePort();
      const gatewayConfig = loadGatewayConfig({ NODE_RPC_URL: `http://127.0.0.1:${node.port}`, PORT: String(gatewayPort), GATEWAY_HOST: '127.0.0.1', NETWORK_ID: 'devnet' });
      const gateway = await startGateway(config, gatewayConfig, PLUGIN_CATALOGUE);
      try {
        const nodeDoc = await fetchDocument(`http://127.0.0.1:${node.port}`);
        const gatewayDoc = await fetchDocument(`http://127.0.0.1:${gatewayPort}`);
        return { node: nodeDoc, gateway: gatewayDoc };
      } finally {
        await gateway.stop();
      }
    } finally {
      await node.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A loopback port free a moment ago (the gateway's config takes a port, not 0). */
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => res(port));
    });
  });
}

async function fetchDocument(base: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`${base}/api/v1/openapi.json answered ${res.status}: ${await res.text()}`);
  return `${JSON.stringify(await res.json(), null, 2)}\n`;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const fresh = await freshApiDocuments();
  let stale = false;
  for (const which of ['node', 'gateway'] as const) {
    const file = OPENAPI_FILES[which];
    if (check) {
      let committed = '';
      try {
        committed = readFileSync(file, 'utf8');
      } catch {
        /* missing: stale */
      }
      if (committed !== fresh[which]) {
        stale = true;
        console.error(`${file} differs from the ${which}'s served document: run npm run openapi and commit it`);
      }
    } else {
      writeFileSync(file, fresh[which]);
      console.log(`wrote ${file}`);
    }
  }
  process.exit(stale ? 1 : 0);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]).endsWith(join('cli', 'write-openapi.js'))) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
