import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { parseHex } from '../codec/hex.js';
import { acceptSnapshot, genesisTrust } from './snapshot-trust.js';

/**
 * Fetches a peer's snapshot and installs it into this node's empty store. The state is trusted
 * only through block h + 1's commit certificate, checked against the genesis validators as a
 * light client would (`verifySnapshotTrust`); the state root is recomputed from the entries on
 * install. Any defect stops start-up: a node must not run on state it cannot verify.
 */
export async function bootstrapFromSnapshot(chain: Chain, url: string, genesis: GenesisDoc, provider: SignatureProvider, log: Logger): Promise<void> {
  const res = await fetch(`${url.replace(/\/$/, '')}/api/v1/state/snapshot`);
  if (!res.ok) throw new Error(`snapshot from ${url}: HTTP ${res.status}${await reasonOf(res)}`);
  const body = (await res.json()) as unknown;
  const checked = await acceptSnapshot(body, genesis.chain_id, genesisTrust(genesis), provider);
  if (!checked.ok) throw new Error(`snapshot from ${url} refused: ${checked.reason}`);
  const entries = checked.snapshot.entries.map(([k, v]) => [k, parseHex(v)!] as const);
  await chain.snapshots.installSnapshot(checked.block, entries);
  log.info({ url, height: checked.snapshot.height, signer: checked.snapshot.signer, certified: checked.snapshot.certifying_commit !== undefined }, 'started from a signed state snapshot');
}

/** The `error` of a JSON error answer, for the start-up message. */
async function reasonOf(res: Response): Promise<string> {
  try {
    const b = (await res.json()) as { error?: unknown };
    return typeof b.error === 'string' ? `: ${b.error}` : '';
  } catch {
    return '';
  }
}
