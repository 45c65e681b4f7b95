import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readKeyFile, type LoadedKey } from '../kernel/crypto/keyfile.js';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { operationPayloadHash } from '../kernel/crypto/signed-message.js';
import { txSigningMessage } from '../kernel/tx/signing.js';
import { toHex } from '../kernel/codec/hex.js';
import type { GenesisDoc } from '../kernel/config/genesis.js';

export interface DevnetToggleFlags {
  dir: string;
  basePort: string;
  votingDuration: string;
  wait: boolean;
}

const GOV = 'chain:system.governance';
/** Blocks between now and the proposal's creation we allow for inclusion, so the height it asks for stays after the tally. */
const INCLUSION_MARGIN = 30;
const POLL_MS = 200;
const TIMEOUT_MS = 10 * 60_000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(url: string, body?: unknown): Promise<Answer> {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

let lastNonce = 0;
/** A millisecond nonce (decisions.md §6), strictly increasing within this process. */
function nonce(): number {
  lastNonce = Math.max(lastNonce + 1, Date.now());
  return lastNonce;
}

/** A ch-tx-v4 operation body signed by a validator's owner key for its `.node` (decisions.md §19, §30, §94). */
function signed(key: LoadedKey, kind: 'propose' | 'vote', actor: string, body: Record<string, unknown>, network: { chainId: string; gasPrice: bigint }): Record<string, unknown> {
  const unsigned = { ...body, nonce: nonce(), gas_price: Number(network.gasPrice) };
  const fields = { kind, actor, target: GOV, value: 0n, nonce: BigInt(unsigned.nonce), gasPrice: network.gasPrice, gasLimit: undefined, payloadHash: operationPayloadHash(unsigned) };
  const msg = txSigningMessage('v4', fields, { chainId: network.chainId, baseFee: network.gasPrice });
  return { ...unsigned, public_key: key.file.public_key, signature: toHex(nobleProvider.sign(msg, key.keys.secretKey)) };
}

async function submitted(url: string, what: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await call(url, body);
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${String(r.body.error ?? JSON.stringify(r.body))}`);
  const hash = r.body.tx_hash as string;
  const base = url.slice(0, url.indexOf('/api/'));
  const tx = await until(`${what} to be included`, async () => {
    const t = await call(`${base}/api/v1/transactions/${hash}`);
    return t.status === 200 && t.body.status !== 'pending' ? t.body : undefined;
  });
  if (tx.status !== 'confirmed') throw new Error(`${what} failed in block ${String(tx.block)}: ${String(tx.error)}`);
  return tx;
}

/**
 * `chain devnet enable|disable <plugin>` on a running devnet: files a `plugin:<name>`
 * PARAM_CHANGE (decisions.md §26) as validator 0, has every validator of the devnet vote yes with
 * the key files the devnet wrote under <dir>/keys, and prints the height at which the plugin
 * switches (the tally ends the shortest window, 100 blocks by default). With --wait it returns
 * once that height is reached.
 */
export async function runDevnetToggle(change: 'activate' | 'retire', plugin: string, o: DevnetToggleFlags, out: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<number> {
  const dir = resolve(o.dir);
  const genesisFile = join(dir, 'genesis.json');
  if (!existsSync(genesisFile)) throw new Error(`${dir} holds no devnet (no genesis.json): start one with chain devnet --dir ${o.dir}`);
  const genesis = JSON.parse(readFileSync(genesisFile, 'utf8')) as GenesisDoc;
  const keys = genesis.validators.map((_, i) => readKeyFile(join(dir, 'keys', `validator-${i}.json`), nobleProvider));
  const rpc = (i: number): string => `http://127.0.0.1:${Number(o.basePort) + i}`;
  const duration = Number(o.votingDuration);
  if (!Number.isInteger(duration) || duration < 100) throw new Error('--voting-duration must be an integer of at least 100 blocks (part 1, Governance 3)');

  const listed = await call(`${rpc(0)}/api/v1/plugins`).catch((e: unknown) => {
    throw new Error(`no devnet answers at ${rpc(0)} (${e instanceof Error ? e.message : String(e)}); is it running, with --base-port ${o.basePort}?`);
  });
  const entry = (listed.body.plugins as Array<Record<string, unknown>>).find((p) => p.name === plugin);
  if (!entry) throw new Error(`plugin "${plugin}" is not loaded on this devnet (listed: ${(listed.body.plugins as Array<{ name: string }>).map((p) => p.name).join(', ')}); a plugin must be in the network's list, e.g. started with --disable-plugin ${plugin}`);
  if (entry.kind !== 'state') throw new Error(`plugin "${plugin}" is a ${String(entry.kind)} plugin: only state plugins switch by governance; service plugins load on a config reload (SIGHUP)`);
  if (change === 'activate' && entry.status === 'active') throw new Error(`plugin "${plugin}" is already active`);
  if (change === 'retire' && entry.status !== 'active') throw new Error(`plugin "${plugin}" is ${String(entry.status)}, not active: nothing to retire`);

  const params = (await call(`${rpc(0)}/api/v1/governance/params`)).body.params as Record<string, { value: number | string }>;
  const network = { chainId: genesis.chain_id, gasPrice: BigInt(params.base_fee?.value ?? 1) };
  const height = (await call(`${rpc(0)}/health`)).body.height as number;
  const switchAt = height + INCLUSION_MARGIN + duration;
  const proposer = keys[0]!.file.node_address ?? 'chain:validator-0.node';
  const tx = await submitted(
    `${rpc(0)}/api/v1/governance/propose`,
    'the proposal',
    signed(keys[0]!, 'propose', proposer, { proposer, title: `${change === 'activate' ? 'enable' : 'disable'} ${plugin}`, description: `chain devnet ${change === 'activate' ? 'enable' : 'disable'} ${plugin}`, kind: 'PARAM_CHANGE', payload: { param_key: `plugin:${plugin}`, param_value: `${change}@${switchAt}` }, voting_duration: duration }, network),
  );
  const proposals = (await call(`${rpc(0)}/api/v1/governance/proposals?status=active&limit=100`)).body.proposals as Array<{ id: number; tx_hash: string; end_height: number }>;
  const p = proposals.find((x) => x.tx_hash === tx.hash);
  if (!p) throw new Error(`the proposal of transaction ${String(tx.hash)} is not listed as active`);
  out(`proposal ${p.id}: plugin:${plugin} ${change}@${switchAt}, voting until height ${p.end_height}`);
  for (const [i, key] of keys.entries()) {
    const voter = key.file.node_address ?? `chain:validator-${i}.node`;
    // The id goes in the signed body too: ch-tx-v4 does not cover the URL (plugins/governance/README.md).
    await submitted(`${rpc(i)}/api/v1/governance/${p.id}/vote`, `${voter}'s vote`, signed(key, 'vote', voter, { id: String(p.id), voter, accept: true }, network));
  }
  out(`${keys.length} validator(s) voted yes; ${plugin} ${change === 'activate' ? 'activates' : 'retires'} at height ${switchAt}`);
  if (o.wait) {
    const closed = await until('the tally', async () => {
      const r = await call(`${rpc(0)}/api/v1/governance/${p.id}`);
      return r.body.status !== 'active' ? r.body : undefined;
    });
    if (closed.status !== 'passed' || closed.applied !== true) throw new Error(`proposal ${p.id} ${String(closed.status)}${closed.apply_error ? `: ${String(closed.apply_error)}` : ''}`);
    await until(`height ${switchAt}`, async () => (((await call(`${rpc(0)}/health`)).body.height as number) >= switchAt ? true : undefined));
    out(`${plugin} is ${change === 'activate' ? 'active' : 'retired'} from height ${switchAt}`);
  }
  return switchAt;
}
