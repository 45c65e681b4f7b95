import type { Logger } from 'pino';
import type { ProposedBlock } from '../chain/chain.js';
import { hashOfCanonical } from '../tx/hash.js';
import { consensusMessageHeight, decodeConsensusMessage, encodeConsensusMessage, type BlockCodec, type ConsensusMessage } from '../consensus/index.js';
import type { FutureMessage } from '../consensus/machine.js';
import { withoutMissing } from './block-codec.js';
import { TAG_TX_TEXTS, decodeTxBatch, encodeTxBatch } from './envelope.js';
import type { FetchedTxs } from './fetched-txs.js';
import { Wal } from './wal.js';

export interface ConsensusWalDeps {
  /** Decodes both block forms on replay. */
  readonly codec: BlockCodec;
  /** Proposals are logged in the compact form they travel in. */
  readonly compactCodec: BlockCodec;
  /** Where replay files a logged proposal's transaction texts. */
  readonly fetched: FetchedTxs;
  readonly log: Logger;
}

/**
 * The replica's consensus messages for the height in progress, in its `Wal`: what it must not
 * forget after a crash (its own votes, and what they rested on), replayed into the machine on
 * restart.
 */
export class ConsensusWal {
  private constructor(
    private readonly wal: Wal,
    private readonly d: ConsensusWalDeps,
  ) {}

  /** Opens (creating) the log at `path` and returns it with the entries left from before a restart. */
  static async open(path: string, d: ConsensusWalDeps): Promise<{ wal: ConsensusWal; entries: Uint8Array[] }> {
    const opened = await Wal.open(path);
    // A torn tail is a crash mid-write; a damaged entry (a checksum that fails) may be a disk
    // fault. Either way what follows it cannot be framed, so it goes: the votes it held are still
    // bound by the last-signed record, which the WAL does not replace.
    if (opened.truncatedBytes > 0) d.log.warn({ file: path, kept_entries: opened.entries.length, cut_bytes: opened.truncatedBytes }, `WAL ${path} ended in a torn or damaged entry; cut it off and replayed the ${opened.entries.length} entries before it`);
    return { wal: new ConsensusWal(opened.wal, d), entries: opened.entries };
  }

  /** An encoded vote; with `sync`, returns only once it is on disk. */
  append(bytes: Uint8Array, sync: boolean): Promise<void> {
    return this.wal.append(bytes, sync);
  }

  /** A proposal in the WAL: its transaction texts first, then the (compact) message itself. */
  async appendProposal(block: ProposedBlock, bytes: Uint8Array, sync: boolean): Promise<void> {
    if (block.txs.length > 0) await this.wal.append(encodeTxBatch(block.txs, [TAG_TX_TEXTS]), false);
    await this.wal.append(bytes, sync);
  }

  /**
   * The messages the machine buffered for the height we are entering go into the fresh WAL before
   * the machine acts on them: a polka seen early locks us as soon as the height starts, and after
   * a crash the replay must rebuild what our votes rested on, or the node would forget its lock.
   */
  async appendBuffered(messages: readonly FutureMessage[]): Promise<void> {
    for (const m of messages) {
      if (m.kind === 'vote') await this.wal.append(encodeConsensusMessage({ kind: 'vote', vote: m.signed }, this.d.codec), false);
      else await this.appendProposal(m.block as ProposedBlock, encodeConsensusMessage({ kind: 'proposal', proposal: m.signed, block: m.block }, this.d.compactCodec), false);
    }
  }

  /**
   * Feeds the entries left from before a restart to the machine, in order. `at.height()` is read
   * per entry: a replayed decision moves the node on to the next height.
   */
  async replay(entries: readonly Uint8Array[], at: { height(): number; feed(msg: ConsensusMessage): Promise<void> }): Promise<void> {
    let replayed = 0;
    for (const bytes of entries) {
      // A proposal's transaction texts precede it, so its compact form decodes without a mempool.
      if (bytes[0] === TAG_TX_TEXTS) {
        for (const t of decodeTxBatch(bytes.subarray(1)) ?? []) this.d.fetched.put(hashOfCanonical(t.canonical), t);
        continue;
      }
      const msg = withoutMissing(decodeConsensusMessage(bytes, this.d.codec));
      if (!msg) continue;
      const h = consensusMessageHeight(msg);
      // Messages of a height already applied are recognised and skipped.
      if (h < at.height()) continue;
      await at.feed(msg);
      replayed++;
    }
    this.d.log.info({ height: at.height(), entries: entries.length, replayed }, 'WAL replayed');
  }

  /** Starts the log afresh: the height it held is in the block store. */
  reset(): Promise<void> {
    return this.wal.reset();
  }

  close(): Promise<void> {
    return this.wal.close();
  }
}
