import { chmodSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AddressString, firstRefusal } from '../../kernel/sdk.js';
import { readKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { CONFIG_ENV, parseMcpConfig } from './config.js';
import { GatewayClient, isRecord } from './gateway-client.js';
import { SERVER_NAME } from './server.js';

export interface ExportFlags {
  readonly key: string;
  readonly account: string;
  readonly gateway: string;
  readonly out: string;
}

/** The list's page size: the route's cap (decisions.md §20). */
const PAGE = 100;

/** The account's grant of `sessionPk`, read page by page (an account may have granted more keys than one page holds). */
async function grantOf(gateway: GatewayClient, account: string, sessionPk: string): Promise<Record<string, unknown> | undefined> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await gateway.get(`/api/v1/session/list/${account}?limit=${PAGE}&offset=${offset}`);
    const grants = isRecord(page) && Array.isArray(page.grants) ? (page.grants as unknown[]).filter(isRecord) : [];
    const found = grants.find((g) => g.session_pk === sessionPk);
    if (found) return found;
    if (!isRecord(page) || page.has_more !== true || grants.length === 0) return undefined;
  }
}

/**
 * `chain mcp export-config`: the config file of part 2, Session keys 5, for a session key the
 * account granted on chain, so a seed is never typed into JSON by hand. `scope` is copied from the
 * grant the gateway serves (GET /api/v1/session/list/:account), for the reader's information only
 * (the node enforces the grant, decisions.md §78). Refused: a key with no grant for the account, or
 * a grant that is no longer active. The file is written with mode 0600 and never over another.
 * Returns what to tell the user: the file, the grant, and the `mcpServers` entry for a desktop
 * assistant (never the seed).
 */
export async function exportConfig(f: ExportFlags, mainJs: string, fetchFn?: (url: string, init: RequestInit) => Promise<Response>): Promise<Record<string, unknown>> {
  const refused = firstRefusal(AddressString, f.account);
  if (refused) throw new Error(`--account: ${refused.message}`);
  const { file } = readKeyFile(f.key, nobleProvider);
  const gateway = new GatewayClient(f.gateway.replace(/\/+$/, ''), fetchFn);
  const grant = await grantOf(gateway, f.account, file.public_key);
  if (!grant) throw new Error(`${f.account} has granted no session key ${file.public_key.slice(0, 16)}… on chain (${f.gateway}): grant it first with chain op grant_session --key <the account's key file> --body '{"session_pk":"<public_key of ${f.key}>","scope":…,"cap":…,"expiry_block":…}' (a grant just sent is listed once its block commits: try again in a moment)`);
  if (grant.status !== 'active') throw new Error(`the grant of this key by ${f.account} is ${String(grant.status)}, not active: grant it again (chain op grant_session)`);
  const config = { node_rpc: gateway.baseUrl, account: f.account, session_pk: file.public_key, sk_seed_hex: file.seed_hex, scope: grant.scope };
  // The server would refuse a file it cannot start with: check it the same way before writing.
  parseMcpConfig(config);
  const out = resolve(f.out);
  try {
    writeFileSync(out, JSON.stringify(config, null, 2) + '\n', { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`${out} exists; refusing to overwrite a config file (it may hold another key's seed)`);
    throw e;
  }
  chmodSync(out, 0o600); // the mode given to writeFileSync passes through the umask
  return {
    config_file: out,
    account: f.account,
    node_rpc: gateway.baseUrl,
    scope: grant.scope,
    cap: grant.cap,
    cap_human: grant.cap_human,
    spent: grant.spent,
    expiry_block: grant.expiry_block,
    mcpServers: { [SERVER_NAME]: { command: process.execPath, args: [mainJs, 'mcp'], env: { [CONFIG_ENV]: out } } },
  };
}
