import { notFound } from '../errors.js';
import { toHex, parseHex } from '../codec/hex.js';
import type { Chain } from '../chain/chain.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import type { RouteTable } from '../node/route-table.js';
import { pageOf } from '../node/pagination.js';
import { checkpointMessage, signSnapshot, type StateSnapshot } from './snapshot.js';

/**
 * `GET /api/v1/state/snapshot` (node only) and `GET /api/v1/checkpoints`, both signed with this
 * node's validator key. Snapshots are built at most once per height (they cost O(state)).
 */
/** Builds of a snapshot tried before answering that the head keeps moving. */
const SNAPSHOT_ATTEMPTS = 5;

export function registerSnapshotRoutes(routes: RouteTable, chain: Chain, signer: { address: string; keys: KeyPair }, provider: SignatureProvider, checkpointInterval: number): void {
  let cached: StateSnapshot | null = null;
  routes.get('/api/v1/state/snapshot', async () => {
    // State is read live, so a commit during the read would mix two heights: the build is
    // discarded and tried again at the new head, and only a chain that keeps moving faster than
    // a snapshot can be read gets the 404.
    for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
      const height = chain.head.height;
      if (height < 1) throw notFound('no block committed yet');
      if (cached?.height === height) return cached;
      const entries = (await chain.stateEntries()).map(([k, v]) => [k, toHex(v)] as [string, string]);
      const block = await chain.store.getBlock(height);
      if (!block || chain.head.height !== height) continue;
      cached = signSnapshot({ chain_id: chain.chainId, block, entries }, signer, provider);
      return cached;
    }
    throw notFound('the head moved while the snapshot was built; retry');
  });

  const signatures = new Map<number, string>();
  routes.get('/api/v1/checkpoints', async (req) => {
    const { limit, offset } = pageOf(req.query, 20, 100);
    const newest = Math.floor(chain.head.height / checkpointInterval) * checkpointInterval;
    const checkpoints = [];
    for (let h = newest - offset * checkpointInterval; h >= checkpointInterval && checkpoints.length < limit; h -= checkpointInterval) {
      const b = await chain.store.getBlock(h);
      if (!b) break; // below a snapshot this node started from
      let signature = signatures.get(h);
      if (!signature) {
        signature = toHex(provider.sign(checkpointMessage(chain.chainId, h, b.hash, b.state_root), signer.keys.secretKey));
        signatures.set(h, signature);
      }
      checkpoints.push({ height: h, block_hash: b.hash, state_root: b.state_root, signer: signer.address, public_key: toHex(signer.keys.publicKey), signature });
    }
    const total = Math.floor(newest / checkpointInterval);
    return { checkpoints, interval: checkpointInterval, total, limit, offset, has_more: offset + checkpoints.length < total };
  });
}

export function verifyCheckpoint(c: { height: number; block_hash: string; state_root: string; public_key: string; signature: string }, chainId: string, provider: SignatureProvider): boolean {
  const sig = parseHex(c.signature);
  const pk = parseHex(c.public_key);
  return !!sig && !!pk && provider.verify(sig, checkpointMessage(chainId, c.height, c.block_hash, c.state_root), pk);
}
