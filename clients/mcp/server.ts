import { McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import { stringify } from '../../kernel/codec/json.js';
import type { McpConfig } from './config.js';
import { GatewayClient, isRecord, ToolFailure, type FetchFn } from './gateway-client.js';
import { INPUTS } from './inputs.js';
import { READ_TOOLS, type ToolContext, type ToolDefinition } from './read-tools.js';
import { inputSchemaOf } from './typebox-validator.js';
import { WRITE_TOOLS } from './write-tools.js';

/** The twelve tools, reading ones first (part 1, "Assistant tool server"; decisions.md §79–§80). */
export const TOOLS: readonly ToolDefinition[] = [...READ_TOOLS, ...WRITE_TOOLS] as readonly ToolDefinition[];

export const SERVER_NAME = 'pq-chain';

/** An integer a JS object cannot carry exactly (above 2^53) as the nearest number, for `structuredContent` only. */
function plainJson(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plainJson);
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x)]));
  return v;
}

/**
 * decisions.md §79: success is one text item with the result's compact JSON (integers exact,
 * whatever their size) and `structuredContent`, the same object; a failure is `isError` with its
 * one text. Nothing a tool throws reaches the SDK as an exception: the process never stops on a
 * tool error.
 */
async function answer(tool: ToolDefinition, ctx: ToolContext, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const result = await tool.run(ctx, args as never);
    const structured = plainJson(result);
    return { content: [{ type: 'text', text: stringify(result) }], ...(isRecord(structured) ? { structuredContent: structured } : {}) };
  } catch (e) {
    const text = e instanceof ToolFailure ? e.message : `${tool.name} failed: ${e instanceof Error ? e.message : String(e)}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
}

const INSTRUCTIONS =
  'Tools for a post-quantum proof-of-stake ledger, through its public gateway. Reading tools need no key. The writing tools (ch_transfer, ch_call_contract, ch_deploy) sign with a session key that the account\'s owner granted on chain with a scope, a spend cap and an expiry; every validator enforces them, so a refusal (401) is final: report it, do not retry another way. Staking, delegation, proposals and votes are not available here. Amounts: ucoin integers with *_human COIN text; ch_transfer takes amount_nro in COIN.';

/**
 * The tool server: the official MCP TypeScript SDK's `McpServer` (v2), capability `tools` only,
 * the twelve tools with input schemas from the routes' TypeBox constants. The transport is the
 * caller's (stdio in `chain mcp`).
 */
export function createToolServer(config: McpConfig, version: string, fetchFn?: FetchFn): McpServer {
  const ctx: ToolContext = { gateway: new GatewayClient(config.nodeRpc, fetchFn), config };
  const server = new McpServer({ name: SERVER_NAME, version }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: inputSchemaOf(INPUTS[tool.name]),
        annotations: { readOnlyHint: !tool.writes, destructiveHint: tool.writes, idempotentHint: !tool.writes, openWorldHint: true },
      },
      (args: Record<string, unknown>) => answer(tool, ctx, args),
    );
  }
  return server;
}
