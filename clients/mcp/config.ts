import { readFileSync } from 'node:fs';
import { firstRefusal, AddressString } from '../../kernel/sdk.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { parseHex, toHex } from '../../kernel/codec/hex.js';
import type { KeyPair } from '../../kernel/crypto/provider.js';
import { PublicKeyHex } from '../../plugins/session/public.js';

/** The environment variable naming the config file (part 2, Session keys 5). */
export const CONFIG_ENV = 'CHAIN_MCP_CONFIG';

/** The session key the tool server signs with; the seed never leaves the process (decisions.md §78). */
export interface SessionKey {
  readonly publicKeyHex: string;
  readonly keys: KeyPair;
}

export interface McpConfig {
  /** The gateway's base URL, without a trailing `/`. */
  readonly nodeRpc: string;
  /** The address acted for; the reading tools' default `address`. */
  readonly account: string | undefined;
  /** Absent: read-only. */
  readonly session: SessionKey | undefined;
}

/** A config the server refuses to start with (exit code 2 before `initialize`), naming the variable or field. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
  constructor(
    readonly field: string,
    why: string,
  ) {
    super(`${field}: ${why}`);
  }
}

/** The file named by `CHAIN_MCP_CONFIG`, read and checked (decisions.md §78). */
export function loadMcpConfig(env: Readonly<Record<string, string | undefined>>): McpConfig {
  const path = env[CONFIG_ENV];
  if (path === undefined || path === '') throw new McpConfigError(CONFIG_ENV, 'not set: name the JSON config file (chain mcp export-config writes one)');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new McpConfigError(CONFIG_ENV, `cannot read ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new McpConfigError(CONFIG_ENV, `${path} is not valid JSON: ${(e as Error).message}`);
  }
  return parseMcpConfig(raw);
}

const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === '';

/**
 * The fields of part 2, Session keys 5: `node_rpc`, `account`, `session_pk`, `sk_seed_hex`,
 * `scope`. `scope` is informational and never read: the on-chain grant alone decides what a
 * session key may do (a scope here wider than the grant gets the node's 401).
 */
export function parseMcpConfig(raw: unknown): McpConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new McpConfigError(CONFIG_ENV, 'the file must hold a JSON object with node_rpc, account, session_pk, sk_seed_hex, scope');
  const c = raw as Record<string, unknown>;

  if (isEmpty(c.node_rpc)) throw new McpConfigError('node_rpc', "missing: the gateway's base URL, e.g. http://127.0.0.1:3000 (the gateway, never a node's port)");
  if (typeof c.node_rpc !== 'string' || !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(c.node_rpc)) throw new McpConfigError('node_rpc', `must be an http:// or https:// URL, got ${JSON.stringify(c.node_rpc)}`);
  const nodeRpc = c.node_rpc.replace(/\/+$/, '');

  let account: string | undefined;
  if (!isEmpty(c.account)) {
    const refused = firstRefusal(AddressString, c.account);
    if (refused) throw new McpConfigError('account', refused.message);
    account = c.account as string;
  }

  const pkGiven = !isEmpty(c.session_pk);
  const seedGiven = !isEmpty(c.sk_seed_hex);
  if (!pkGiven && !seedGiven) return { nodeRpc, account, session: undefined };
  if (!seedGiven) throw new McpConfigError('sk_seed_hex', 'empty while session_pk is set: give both (a session key) or neither (read-only)');
  if (!pkGiven) throw new McpConfigError('session_pk', 'empty while sk_seed_hex is set: give both (a session key) or neither (read-only)');
  if (firstRefusal(PublicKeyHex, c.session_pk)) throw new McpConfigError('session_pk', 'must be the session key\'s ML-DSA-65 public key as 3904 hex characters');
  const seed = typeof c.sk_seed_hex === 'string' ? parseHex(c.sk_seed_hex, 32) : null;
  if (!seed || (c.sk_seed_hex as string).startsWith('0x')) throw new McpConfigError('sk_seed_hex', 'must be 64 hex characters (the 32-byte seed of the session key)');
  const keys = nobleProvider.keygen(seed);
  const publicKeyHex = toHex(keys.publicKey);
  if (publicKeyHex !== (c.session_pk as string).toLowerCase()) throw new McpConfigError('sk_seed_hex', 'the key pair this seed generates does not have the public key session_pk (a seed and key of different keys)');
  if (account === undefined) throw new McpConfigError('account', 'required with a session key: the address the key was granted for');
  return { nodeRpc, account, session: { publicKeyHex, keys } };
}
