import type { Command } from 'commander';
import { readKeyFile } from '../kernel/crypto/keyfile.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import type { OperationLayout } from '../kernel/ops/message.js';
import { operationRegistryOf, signOperationBody } from './client/operation-body.js';
import type { Catalogue, CatalogueSource } from './catalogue.js';

export interface OpFlags {
  readonly body: string;
  readonly key: string;
  readonly rpc: string;
  readonly nonce?: string;
  readonly gasPrice?: string;
  readonly gasLimit?: string;
  readonly layout: string;
  readonly dryRun: boolean;
}

async function fetchJson(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, init);
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: text };
  }
}

const LAYOUTS: readonly OperationLayout[] = ['v4', 'v3', 'v2', 'own'];

async function nodeAnswer(url: string): Promise<Record<string, unknown>> {
  const r = await fetchJson(url);
  if (r.status !== 200 || r.body === null || typeof r.body !== 'object') throw new Error(`GET ${url} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as Record<string, unknown>;
}

/**
 * `chain op <name>`: builds, signs and submits any operation of the build (session grants,
 * sponsor pools, key rotation, recovery, staking, …) to a node's RPC. What it signs comes from
 * the kernel's own code (kernel/ops/message.ts, the verifier's builder): `ch-tx-v4` by default,
 * naming the node's chain id (`GET /api/v1/status`) and the operation, at the node's base fee
 * unless `--gas-price` says otherwise; `--layout own` signs the operation's own layout
 * (identity's `ch-recovery-approve|…`), `--layout v3` / `v2` the older ones where the network
 * still takes them. The actor field is filled with the key's address when the body omits it; the
 * nonce is the current millisecond time unless `--nonce` says otherwise.
 */
export async function runOpCommand(name: string, flags: OpFlags, catalogue: Catalogue): Promise<void> {
  const registry = operationRegistryOf(catalogue);
  const layout = flags.layout as OperationLayout;
  if (!LAYOUTS.includes(layout)) throw new Error(`--layout ${flags.layout}: expected one of ${LAYOUTS.join(', ')}`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(flags.body) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`--body is not JSON: ${(e as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('--body must be a JSON object');
  if (!registry.get(name)) throw new Error(`unknown operation ${JSON.stringify(name)}; the build has: ${registry.list().map((o) => o.spec.name).join(', ')}`);
  const key = readKeyFile(flags.key, nobleProvider);
  const rpc = flags.rpc.replace(/\/+$/, '');
  const nonce = flags.nonce !== undefined ? Number(flags.nonce) : Date.now();
  if (!Number.isSafeInteger(nonce)) throw new Error(`--nonce ${flags.nonce}: expected a millisecond timestamp`);
  const gasLimit = flags.gasLimit !== undefined ? Number(flags.gasLimit) : undefined;
  if (gasLimit !== undefined && (!Number.isSafeInteger(gasLimit) || gasLimit < 1)) throw new Error(`--gas-limit ${flags.gasLimit}: expected a positive integer`);
  let gasPrice: bigint | undefined;
  if (flags.gasPrice !== undefined) gasPrice = BigInt(flags.gasPrice);
  else if (layout === 'v3' || layout === 'v4') gasPrice = BigInt((await nodeAnswer(`${rpc}/api/v1/gas/estimate`)).base_fee as number | string);
  const chainId = layout === 'v4' ? String((await nodeAnswer(`${rpc}/api/v1/status`)).chain_id) : '';
  const { method, path, body: signed } = signOperationBody(registry, name, body, key, { layout, chainId, nonce, ...(gasPrice !== undefined ? { gasPrice } : {}), ...(gasLimit !== undefined ? { gasLimit } : {}) }, nobleProvider);
  if (flags.dryRun) {
    process.stdout.write(JSON.stringify({ method: method, url: `${rpc}${path}`, layout, body: signed }, null, 2) + '\n');
    return;
  }
  const answer = await fetchJson(`${rpc}${path}`, { method: method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(signed) });
  process.stdout.write(JSON.stringify(answer.body, null, 2) + '\n');
  if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}`);
}

export function registerOpCommand(program: Command, catalogue: CatalogueSource): void {
  program
    .command('op <name>')
    .description('sign an operation (grant_session, rotate_key, recovery_approve, sponsor_deposit, stake, …) with a key file and submit it to a node')
    .requiredOption('--body <json>', 'the operation body without nonce, public_key and signature; the actor field defaults to the key\'s address')
    .requiredOption('--key <file>', 'key file that signs (chain keys generate --out)')
    .option('--rpc <url>', 'node RPC URL (default: CHAIN_RPC, else NODE_RPC_URL, else the local node)', process.env.CHAIN_RPC || process.env.NODE_RPC_URL || 'http://127.0.0.1:9933')
    .option('--nonce <ms>', 'operation nonce, a millisecond timestamp (default: now)')
    .option('--gas-price <ucoin>', 'gas price, covered by ch-tx-v4 and v3 (default: the node\'s base fee)')
    .option('--gas-limit <gas>', 'gas limit (needs ch-tx-v4)')
    .option('--layout <layout>', 'what to sign: v4 (default), own (the operation\'s own layout), v3 or v2 (where the network takes them)', 'v4')
    .option('--dry-run', 'print the signed request instead of sending it', false)
    .action(async (name: string, f: OpFlags) => runOpCommand(name, f, await catalogue()));
}
