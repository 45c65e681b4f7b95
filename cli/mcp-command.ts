import type { Command } from 'commander';
import type { ExportFlags } from '../clients/mcp/export-config.js';

/**
 * `chain mcp` and `chain mcp export-config` (clients/mcp/README.md). The tool server and the MCP
 * SDK are loaded only when one of them runs (cli/mcp-process.ts), not by every `chain node`.
 */
export function registerMcpCommand(program: Command): void {
  const mcp = program
    .command('mcp')
    .description('the assistant tool server (MCP over stdio) for AI assistants: reads the chain through the gateway, and writes within a session key; configured by the JSON file named in CHAIN_MCP_CONFIG (clients/mcp/README.md)')
    .action(async () => (await import('./mcp-process.js')).runMcp());
  mcp
    .command('export-config')
    .description("write the tool server's config file (mode 0600, never overwriting) for a session key granted on chain, its scope read from the grant")
    .requiredOption('--key <file>', "the session key's key file (chain keys generate --out)")
    .requiredOption('--account <address>', 'the account that granted the key (chain op grant_session)')
    .option('--gateway <url>', "the gateway's URL, written as node_rpc", 'http://127.0.0.1:3000')
    .option('--out <file>', 'the config file to write', 'chain-mcp.json')
    .action(async (f: ExportFlags) => (await import('./mcp-process.js')).runExportConfig(f));
}
