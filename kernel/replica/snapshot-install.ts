import type { ChainSnapshots } from '../chain/chain-snapshots.js';
import { parseHex } from '../codec/hex.js';
import type { BlockRecord } from '../model/types.js';
import type { StateSource } from '../state/overlay.js';
import { EntriesHasher, entryJson, isSnapshotEntry, type SnapshotCounters } from './snapshot.js';
import { SnapshotStreamReader } from './snapshot-stream.js';

/** An accepted snapshot's block and the serving node's counters at it, if it sent them. */
export type SnapshotVerdict = { ok: true; block: BlockRecord; counters?: SnapshotCounters | undefined } | { ok: false; reason: string };

/**
 * Installs the snapshot document whose bytes `chunks` yields (a peer's `GET /api/v1/state/snapshot`
 * body) into an empty store as it arrives: the document is read a chunk at a time
 * (`SnapshotStreamReader`), its entries hashed as they pass and handed to the chain's streamed
 * install (`ChainSnapshots.installStream`), so memory holds one network chunk and one run of
 * entries, never the state or its JSON. At the end `accept` judges the snapshot's other fields
 * given the hash of the entries received and the staged state.
 */
export async function installSnapshotDocument(snapshots: ChainSnapshots, chunks: AsyncIterable<Uint8Array>, accept: (head: unknown, entriesHash: string, state: StateSource) => Promise<SnapshotVerdict>, run?: number): Promise<{ height: number; keys: number }> {
  const head: Record<string, unknown> = {};
  const hasher = new EntriesHasher();
  let ready: Array<readonly [string, Uint8Array]> = [];
  const reader = new SnapshotStreamReader({
    field: (name, value) => {
      head[name] = value;
    },
    entry: (e) => {
      if (!isSnapshotEntry(e)) throw new Error('snapshot refused: snapshot entries are malformed');
      hasher.add(entryJson(e[0], e[1]));
      ready.push([e[0], parseHex(e[1])!]);
    },
  });
  async function* entries(): AsyncIterable<readonly [string, Uint8Array]> {
    for await (const bytes of chunks) {
      await reader.push(bytes);
      const out = ready;
      ready = [];
      yield* out;
    }
    reader.end();
  }
  return snapshots.installStream(entries(), (state) => accept(head, hasher.digest(), state), run);
}
