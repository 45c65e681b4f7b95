import { ChainError, notFound, unavailable } from '../errors.js';
import { toHex, parseHex } from '../codec/hex.js';
import type { Chain } from '../chain/chain.js';
import type { CommittedBlock } from '../chain/types.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import type { RouteTable } from '../node/route-table.js';
import { pageOf } from '../node/pagination.js';
import type { ValidatorSet } from '../consensus/validator-set.js';
import { checkpointMessage, signSnapshot, type StateSnapshot } from './snapshot.js';
import { verifySnapshotTrust } from './snapshot-trust.js';

/** Builds of a snapshot tried before answering that the head keeps moving. */
const SNAPSHOT_ATTEMPTS = 5;
/** How long a snapshot request waits for the block that certifies it. */
const CERTIFY_WAIT_MS = 30_000;
/** The most blocks a served snapshot may be behind the head: well inside the peers' history, and small enough that a follower replays little. */
export function snapshotMaxLag(syncHistoryBlocks: number): number {
  return Math.max(1, Math.min(100, Math.floor(syncHistoryBlocks / 2)));
}

/**
 * `GET /api/v1/state/snapshot` (node only) and `GET /api/v1/checkpoints`, both signed with this
 * node's key. A snapshot of height h waits for block h + 1, whose certificate is what makes it
 * trustworthy, and is then served to every request until it is too old for a follower to fetch
 * the blocks after it from its peers' history (snapshots cost O(state) to build).
 */
export function registerSnapshotRoutes(
  routes: RouteTable,
  chain: Chain,
  signer: { address: string; keys: KeyPair },
  provider: SignatureProvider,
  trusted: ValidatorSet,
  checkpointInterval: number,
  syncHistoryBlocks: number,
): void {
  let cached: StateSnapshot | null = null;
  let building: Promise<StateSnapshot> | null = null;
  // A 503 stands until the head moves: a build reads the whole state, and asking again at the
  // same head would read it again to reach the same answer.
  let refused: { readonly head: number; readonly error: ChainError } | null = null;
  const maxLag = snapshotMaxLag(syncHistoryBlocks);
  routes.get('/api/v1/state/snapshot', async () => {
    if (cached && chain.head.height - cached.height <= maxLag) return cached;
    if (refused && refused.head === chain.head.height) throw refused.error;
    // One build at a time: concurrent requests share it.
    building ??= buildSnapshot(chain, signer, provider, trusted)
      .then((s) => (cached = s))
      .catch((e: unknown) => {
        if (e instanceof ChainError && e.status === 503) refused = { head: chain.head.height, error: e };
        throw e;
      })
      .finally(() => (building = null));
    return building;
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

async function buildSnapshot(chain: Chain, signer: { address: string; keys: KeyPair }, provider: SignatureProvider, trusted: ValidatorSet): Promise<StateSnapshot> {
  // State is read live, so a commit during the read would mix two heights: the build is
  // discarded and tried again at the new head, and only a chain that keeps moving faster than
  // a snapshot can be read gets the 404.
  for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
    const height = chain.head.height;
    if (height < 1) throw notFound('no block committed yet');
    const entries = (await chain.stateEntries()).map(([k, v]) => [k, toHex(v)] as [string, string]);
    const block = await chain.store.getBlock(height);
    if (!block || chain.head.height !== height) continue;
    if (!(await committedPast(chain, height, CERTIFY_WAIT_MS))) {
      throw unavailable(`block ${height + 1}, whose certificate vouches for the snapshot of height ${height}, is not committed yet`, 'retry when the chain makes progress');
    }
    const next = await chain.store.getBlock(height + 1);
    if (!next) throw new Error(`store integrity: block ${height + 1} is committed but cannot be read`);
    const commit = await chain.store.getCommit(height + 1);
    const snapshot = signSnapshot({ chain_id: chain.chainId, block, entries, certifying: { block: next, commit } }, signer, provider);
    // A certificate holds the first > 2/3 of precommits this node collected; once the set has
    // moved on from genesis, those may hold too little genesis power for a follower to trust.
    // Saying so here is better than serving megabytes the follower must refuse.
    const trust = await verifySnapshotTrust(snapshot, block, trusted, provider);
    if (!trust.ok) throw unavailable(`a node that trusts the genesis validators would refuse this snapshot: ${trust.reason}`, 'start the node without --snapshot-from and let it replay blocks from its peers');
    return snapshot;
  }
  throw notFound('the head moved while the snapshot was built; retry');
}

/** Resolves true once a block above `height` is committed, false after `ms` without one. */
function committedPast(chain: Chain, height: number, ms: number): Promise<boolean> {
  if (chain.head.height > height) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      chain.off('committed', onCommitted);
      resolve(ok);
    };
    const onCommitted = (c: CommittedBlock): void => {
      if (c.block.header.height > height) done(true);
    };
    const timer = setTimeout(() => done(false), ms);
    chain.on('committed', onCommitted);
  });
}

export function verifyCheckpoint(c: { height: number; block_hash: string; state_root: string; public_key: string; signature: string }, chainId: string, provider: SignatureProvider): boolean {
  const sig = parseHex(c.signature);
  const pk = parseHex(c.public_key);
  return !!sig && !!pk && provider.verify(sig, checkpointMessage(chainId, c.height, c.block_hash, c.state_root), pk);
}
