import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { checkSnapshotHead, snapshotCounters } from './snapshot.js';
import { installSnapshotDocument } from './snapshot-install.js';
import { genesisTrust, verifySnapshotTrust } from './snapshot-trust.js';

/**
 * Fetches a peer's snapshot and installs it into this node's empty store as it downloads: the
 * response body is read a network chunk at a time and its entries written through the state
 * tree in bounded runs (`installSnapshotDocument`), so neither the state nor its JSON
 * is ever held whole. The state is trusted only through block h + 1's commit certificate,
 * checked against the genesis validators as a light client would (`verifySnapshotTrust`), and
 * the state root is recomputed from the entries. Any defect stops start-up and leaves the store
 * empty: a node must not run on state it cannot verify.
 */
export async function bootstrapFromSnapshot(chain: Chain, url: string, genesis: GenesisDoc, provider: SignatureProvider, log: Logger): Promise<void> {
  const res = await fetch(`${url.replace(/\/$/, '')}/api/v1/state/snapshot`);
  if (!res.ok) throw new Error(`snapshot from ${url}: HTTP ${res.status}${await reasonOf(res)}`);
  if (!res.body) throw new Error(`snapshot from ${url}: the answer has no body`);
  const trusted = genesisTrust(genesis);
  let signer = '';
  let certified = false;
  try {
    const installed = await installSnapshotDocument(chain.snapshots, res.body, async (head, entriesHash, state) => {
      const checked = checkSnapshotHead(head, entriesHash, genesis.chain_id, provider);
      if (!checked.ok) return checked;
      signer = checked.head.signer;
      certified = checked.head.certifying_commit !== undefined;
      const trust = await verifySnapshotTrust(checked.head, checked.block, trusted, provider, state);
      return trust.ok ? { ok: true, block: checked.block, counters: snapshotCounters(checked.head) } : trust;
    });
    log.info({ url, height: installed.height, keys: installed.keys, signer, certified }, 'started from a signed state snapshot');
  } catch (e) {
    throw new Error(`snapshot from ${url}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
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
