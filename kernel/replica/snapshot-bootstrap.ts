import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { parseHex } from '../codec/hex.js';
import { checkSnapshot } from './snapshot.js';

/**
 * Fetches a peer's signed snapshot and installs it into this node's empty store. Trusted signers
 * are the genesis validators; the state root is recomputed from the entries on install. Any
 * defect stops start-up: a node must not run on state it cannot verify.
 */
export async function bootstrapFromSnapshot(chain: Chain, url: string, genesis: GenesisDoc, provider: SignatureProvider, log: Logger): Promise<void> {
  const res = await fetch(`${url.replace(/\/$/, '')}/api/v1/state/snapshot`);
  if (!res.ok) throw new Error(`snapshot from ${url}: HTTP ${res.status}`);
  const body = (await res.json()) as unknown;
  const trusted = genesis.validators.map((v) => ({ address: v.address, public_key: v.public_key }));
  const checked = checkSnapshot(body, genesis.chain_id, trusted, provider);
  if (!checked.ok) throw new Error(`snapshot from ${url} refused: ${checked.reason}`);
  const entries = checked.snapshot.entries.map(([k, v]) => [k, parseHex(v)!] as const);
  await chain.installSnapshot(checked.block, entries);
  log.info({ url, height: checked.snapshot.height, signer: checked.snapshot.signer }, 'started from a signed state snapshot');
}
