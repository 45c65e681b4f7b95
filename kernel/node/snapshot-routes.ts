import { ChainError, notFound, unavailable } from '../errors.js';
import { toHex, parseHex } from '../codec/hex.js';
import type { Chain } from '../chain/chain.js';
import type { CommittedBlock } from '../model/types.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import type { RouteTable } from '../host/route-table.js';
import { toPage } from './page-query.js';
import { KERNEL_ROUTES } from './kernel-declarations.js';
import type { ValidatorSet } from '../consensus/validator-set.js';
import { mkdirSync, rmSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { JSON_CONTENT_TYPE, streamReply } from '../rpc/respond.js';
import { checkpointMessage, snapshotBlocks } from '../replica/snapshot.js';
import { writeSnapshotFile } from '../replica/snapshot-file.js';
import { verifySnapshotTrust } from '../replica/snapshot-trust.js';

/** How long a snapshot request waits for the block that certifies it. */
const CERTIFY_WAIT_MS = 30_000;
/** The most blocks a served snapshot may be behind the head: well inside the peers' history, and small enough that a follower replays little. */
export function snapshotMaxLag(syncHistoryBlocks: number): number {
  return Math.max(1, Math.min(100, Math.floor(syncHistoryBlocks / 2)));
}

/** A snapshot written out whole: its height, and the file a request streams. */
interface SnapshotFile {
  readonly height: number;
  readonly path: string;
}

/**
 * `GET /api/v1/state/snapshot` (node only) and `GET /api/v1/checkpoints`, both signed with this
 * node's key. A snapshot of height h waits for block h + 1, whose certificate is what makes it
 * trustworthy. It is written to a file under `dir` as the state is read (a LevelDB snapshot of
 * height h, so commits meanwhile do not mix in) and streamed from that file to every request
 * until it is too old for a follower to fetch the blocks after it from its peers' history: one
 * read of the state per `snapshotMaxLag` blocks however many ask, and the node holds a chunk of
 * it in memory at a time, never the whole state or its JSON.
 */
export function registerSnapshotRoutes(
  routes: RouteTable,
  chain: Chain,
  signer: { address: string; keys: KeyPair },
  provider: SignatureProvider,
  trusted: ValidatorSet,
  checkpointInterval: number,
  syncHistoryBlocks: number,
  dir: string,
): void {
  let cached: SnapshotFile | null = null;
  let building: Promise<SnapshotFile> | null = null;
  // A 503 stands until the head moves: a build reads the whole state, and asking again at the
  // same head would read it again to reach the same answer.
  let refused: { readonly head: number; readonly error: ChainError } | null = null;
  const maxLag = snapshotMaxLag(syncHistoryBlocks);
  // Files of an earlier run are not served: the cache starts empty, and so does the folder
  // (once, at start-up, before any request).
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const current = async (): Promise<SnapshotFile> => {
    if (cached && chain.head.height - cached.height <= maxLag) return cached;
    if (refused && refused.head === chain.head.height) throw refused.error;
    // One build at a time: concurrent requests share it.
    building ??= buildSnapshot(chain, signer, provider, trusted, dir)
      .then(async (s) => {
        const old = cached;
        cached = s;
        // A stream already reading the old file keeps its open descriptor.
        if (old && old.path !== s.path) await rm(old.path, { force: true });
        return s;
      })
      .catch((e: unknown) => {
        if (e instanceof ChainError && e.status === 503) refused = { head: chain.head.height, error: e };
        throw e;
      })
      .finally(() => (building = null));
    return building;
  };
  routes.serve(KERNEL_ROUTES.snapshot, async () => {
    const file = await open((await current()).path, 'r');
    return streamReply(fileChunks(file), { contentType: JSON_CONTENT_TYPE });
  });

  const signatures = new Map<number, string>();
  routes.serve(KERNEL_ROUTES.checkpoints, async (req) => {
    const { limit, offset } = toPage(req.query);
    const newest = Math.floor(chain.head.height / checkpointInterval) * checkpointInterval;
    const checkpoints = [];
    for (let h = newest - offset * checkpointInterval; h >= checkpointInterval && checkpoints.length < limit; h -= checkpointInterval) {
      const b = await chain.queries.getBlock(h);
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

/** A file's bytes in chunks as the client takes them; the file is closed at the end or on a cut connection. */
async function* fileChunks(file: FileHandle): AsyncIterable<Uint8Array> {
  try {
    for await (const chunk of file.createReadStream({ autoClose: false })) yield chunk as Buffer;
  } finally {
    await file.close();
  }
}

async function buildSnapshot(chain: Chain, signer: { address: string; keys: KeyPair }, provider: SignatureProvider, trusted: ValidatorSet, dir: string): Promise<SnapshotFile> {
  // One consistent view: its height and its state are the same block's, whatever commits while
  // the file is written.
  const view = await chain.snapshots.stateView();
  try {
    const height = view.head.height;
    if (height < 1) throw notFound('no block committed yet');
    const block = await chain.queries.getBlock(height);
    if (!block) throw new Error(`store integrity: block ${height} is committed but cannot be read`);
    if (!(await committedPast(chain, height, CERTIFY_WAIT_MS))) {
      throw unavailable(`block ${height + 1}, whose certificate vouches for the snapshot of height ${height}, is not committed yet`, 'retry when the chain makes progress');
    }
    const next = await chain.queries.getBlock(height + 1);
    if (!next) throw new Error(`store integrity: block ${height + 1} is committed but cannot be read`);
    const commit = await chain.queries.getCommit(height + 1);
    const blocks = snapshotBlocks({ chain_id: chain.chainId, block, certifying: { block: next, commit }, counters: { total_txs: view.head.total_txs, total_burned: view.head.total_burned } });
    // A certificate holds the first > 2/3 of precommits this node collected; once the set has
    // moved on from genesis, those may hold too little genesis power for a follower to trust.
    // Saying so before the state is read is better than serving megabytes the follower must refuse.
    const trust = await verifySnapshotTrust({ ...blocks, signer: signer.address, public_key: toHex(signer.keys.publicKey) }, block, trusted, provider, view.state);
    if (!trust.ok) throw unavailable(`a node that trusts the genesis validators would refuse this snapshot: ${trust.reason}`, 'start the node without --snapshot-from and let it replay blocks from its peers');
    const path = join(dir, `snapshot-${height}.json`);
    await writeSnapshotFile(path, view, blocks, signer, provider);
    return { height, path };
  } finally {
    await view.close();
  }
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
