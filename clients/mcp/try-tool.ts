import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/**
 * Try the tool server from a shell before connecting an assistant (root README, "Use the chain
 * from an AI assistant"): starts `chain mcp` the way an assistant does (the MCP SDK's own client
 * over stdio, `CHAIN_MCP_CONFIG` passed in its environment) and calls one tool, or lists them.
 *
 *   CHAIN_MCP_CONFIG=chain-mcp.json node dist/clients/mcp/try-tool.js --list
 *   CHAIN_MCP_CONFIG=chain-mcp.json node dist/clients/mcp/try-tool.js ch_transfer '{"to":"chain:…human","amount_nro":"0.5"}'
 *
 * Prints the tool's result; exits 1 when it is an error. It uses the client package, a
 * development dependency (installed by `npm ci`).
 */
const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../cli/main.js');

async function main(argv: readonly string[]): Promise<number> {
  const [tool, argsText] = argv;
  if (tool === undefined || tool === '--help') {
    process.stderr.write('usage: try-tool.js --list | <tool> [<arguments as a JSON object>]   (CHAIN_MCP_CONFIG names the config file)\n');
    return 2;
  }
  let args: Record<string, unknown> = {};
  if (argsText !== undefined) {
    try {
      args = JSON.parse(argsText) as Record<string, unknown>;
    } catch (e) {
      process.stderr.write(`the arguments are not JSON: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const env: Record<string, string> = { ...getDefaultEnvironment() };
  if (process.env.CHAIN_MCP_CONFIG !== undefined) env.CHAIN_MCP_CONFIG = resolve(process.env.CHAIN_MCP_CONFIG);
  // The server's own log (stderr) only for warnings: a refused config is still printed.
  env.CHAIN_LOG_LEVEL = process.env.CHAIN_LOG_LEVEL ?? 'warn';
  const client = new Client({ name: 'try-tool', version: '1.0.0' });
  try {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp'], env }));
  } catch (e) {
    process.stderr.write(`chain mcp did not start (its reason is above): ${(e as Error).message}\n`);
    return 2;
  }
  try {
    if (tool === '--list') {
      const { tools } = await client.listTools();
      for (const t of tools) process.stdout.write(`${t.name}(${Object.keys(t.inputSchema.properties ?? {}).join(', ')})  ${t.title ?? ''}\n`);
      return 0;
    }
    const result = await client.callTool({ name: tool, arguments: args });
    if (result.isError === true) {
      process.stderr.write((result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('') + '\n');
      return 1;
    }
    process.stdout.write(JSON.stringify(result.structuredContent ?? result.content, null, 2) + '\n');
    return 0;
  } finally {
    await client.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
