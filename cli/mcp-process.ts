import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import pino from 'pino';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { loadMcpConfig, McpConfigError } from '../clients/mcp/config.js';
import { createToolServer, TOOLS } from '../clients/mcp/server.js';
import { exportConfig, type ExportFlags } from '../clients/mcp/export-config.js';

/** The build's version (package.json beside dist/), told to clients in `initialize`. */
function version(): string {
  try {
    return String((createRequire(import.meta.url)('../../package.json') as { version?: unknown }).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

/**
 * `chain mcp`: the assistant tool server on stdio (decisions.md §78). The config is read and
 * checked before anything is answered: a bad one stops the process with exit code 2 and the
 * variable or field named on stderr. stdout carries protocol messages only; the log goes to
 * stderr. The process exits when its client closes stdin.
 */
export async function runMcp(): Promise<void> {
  let config;
  try {
    config = loadMcpConfig(process.env);
  } catch (e) {
    if (!(e instanceof McpConfigError)) throw e;
    process.stderr.write(`chain mcp: ${e.message}\n`);
    process.exit(2);
  }
  const log = pino({ name: 'chain-mcp', level: process.env.CHAIN_LOG_LEVEL ?? 'info' }, pino.destination(2));
  const server = createToolServer(config, version());
  server.server.onclose = () => {
    log.info('the client closed stdin: exiting');
    process.exit(0);
  };
  await server.connect(new StdioServerTransport());
  log.info({ gateway: config.nodeRpc, account: config.account ?? null, mode: config.session ? 'session key' : 'read-only', tools: TOOLS.length }, 'chain mcp: serving tools on stdio');
}

/** `chain mcp export-config`: writes the file and prints what to tell the user (never the seed). */
export async function runExportConfig(f: ExportFlags): Promise<void> {
  const written = await exportConfig(f, resolve(process.argv[1] ?? 'dist/cli/main.js'));
  process.stdout.write(JSON.stringify(written, null, 2) + '\n');
}
