import type { Command } from 'commander';
import { readKeyFile } from '../kernel/crypto/keyfile.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { toHex } from '../kernel/codec/hex.js';
import { OperationRegistry } from '../kernel/ops/registry.js';
import { operationMessage } from '../kernel/ops/message.js';
import type { Catalogue } from './catalogue.js';

export interface OpFlags {
  readonly body: string;
  readonly key: string;
  readonly rpc: string;
  readonly nonce?: string;
  readonly gasPrice?: string;
  readonly v2: boolean;
  readonly dryRun: boolean;
}

/** Every operation of the build's plugins, as the node registers them (actor, value and target rules included). */
function registryOf(catalogue: Catalogue): OperationRegistry {
  const registry = new OperationRegistry();
  for (const def of catalogue.values()) for (const spec of def.operations ?? []) registry.add(def.name, spec);
  return registry;
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

/**
 * `chain op <name>`: builds, signs and submits any operation of the build (session grants,
 * sponsor pools, key rotation, recovery, staking, …) to a node's RPC. What it signs comes from
 * the kernel's own code: the operation's own layout when it has one (identity's `ch-rotate|…`,
 * `ch-recovery-approve|…`, exported by the plugin), else `ch-tx-v3` at the node's base fee
 * (`--v2`: `ch-tx-v2`). The actor field is filled with the key's address when the body omits
 * it; the nonce is the current millisecond time unless `--nonce` says otherwise.
 */
export async function runOpCommand(name: string, flags: OpFlags, catalogue: Catalogue): Promise<void> {
  const registry = registryOf(catalogue);
  const reg = registry.get(name);
  if (!reg) throw new Error(`unknown operation ${JSON.stringify(name)}; the build has: ${registry.list().map((o) => o.spec.name).join(', ')}`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(flags.body) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`--body is not JSON: ${(e as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('--body must be a JSON object');
  const { file, keys } = readKeyFile(flags.key, nobleProvider);
  const rpc = flags.rpc.replace(/\/+$/, '');
  const nonce = flags.nonce !== undefined ? Number(flags.nonce) : Date.now();
  if (!Number.isSafeInteger(nonce)) throw new Error(`--nonce ${flags.nonce}: expected a millisecond timestamp`);
  const layout = reg.spec.signing?.message ? 'own' : flags.v2 ? 'v2' : 'v3';
  let gasPrice: bigint | undefined;
  if (flags.gasPrice !== undefined) gasPrice = BigInt(flags.gasPrice);
  else if (layout === 'v3') {
    const estimate = await fetchJson(`${rpc}/api/v1/gas/estimate`);
    if (estimate.status !== 200) throw new Error(`GET ${rpc}/api/v1/gas/estimate answered ${estimate.status}: ${JSON.stringify(estimate.body)}`);
    gasPrice = BigInt((estimate.body as { base_fee: number | string }).base_fee);
  }
  const unsigned: Record<string, unknown> = { [reg.actorField]: file.address, ...body, nonce, ...(gasPrice !== undefined ? { gas_price: Number(gasPrice) } : {}) };
  // Parsed as the node parses it, so actor, target and value are the node's; the signature is filled after.
  const parsed = registry.parse(registry.envelope(name, { ...unsigned, public_key: file.public_key, signature: '-' }, {}));
  const signature = toHex(nobleProvider.sign(operationMessage(parsed, layout, gasPrice ?? 0n), keys.secretKey));
  const signed = { ...unsigned, public_key: file.public_key, signature };
  const route = reg.spec.routes[0];
  if (!route) throw new Error(`operation ${name} has no route to submit it to`);
  const path = route.path.replace(/:([a-z_]+)/g, (_m, p: string) => encodeURIComponent(String(unsigned[p] ?? '')));
  if (flags.dryRun) {
    process.stdout.write(JSON.stringify({ method: route.method, url: `${rpc}${path}`, layout, body: signed }, null, 2) + '\n');
    return;
  }
  const answer = await fetchJson(`${rpc}${path}`, { method: route.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(signed) });
  process.stdout.write(JSON.stringify(answer.body, null, 2) + '\n');
  if (answer.status !== 200) throw new Error(`${route.method} ${path} answered ${answer.status}`);
}

export function registerOpCommand(program: Command, catalogue: Catalogue): void {
  program
    .command('op <name>')
    .description('sign an operation (grant_session, rotate_key, recovery_approve, sponsor_deposit, stake, …) with a key file and submit it to a node')
    .requiredOption('--body <json>', 'the operation body without nonce, public_key and signature; the actor field defaults to the key\'s address')
    .requiredOption('--key <file>', 'key file that signs (chain keys generate --out)')
    .option('--rpc <url>', 'node RPC URL (default: CHAIN_RPC, else NODE_RPC_URL, else the local node)', process.env.CHAIN_RPC || process.env.NODE_RPC_URL || 'http://127.0.0.1:9933')
    .option('--nonce <ms>', 'operation nonce, a millisecond timestamp (default: now)')
    .option('--gas-price <ucoin>', 'gas price to sign with ch-tx-v3 (default: the node\'s base fee)')
    .option('--v2', 'sign ch-tx-v2 instead of ch-tx-v3 (operations without a layout of their own)', false)
    .option('--dry-run', 'print the signed request instead of sending it', false)
    .action((name: string, f: OpFlags) => runOpCommand(name, f, catalogue));
}
