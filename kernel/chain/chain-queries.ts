import type { BlockEvent, BlockRecord, Receipt, Tx } from '../model/types.js';
import type { Validator } from '../consensus/types.js';
import type { ParamRegistry } from '../state/params.js';
import type { StateSource } from '../state/overlay.js';
import { parseStateProof, MissingNodeError, type StateTree } from '../state/tree/index.js';
import type { AddressTotals, ChainMeta, ChainStore, StoredTx, TxPage } from '../store/chain-store.js';
import type { IndexReader } from '../store/plugin-index.js';
import type { ValidatorActivity } from '../store/validator-activity.js';
import type { TxFields } from '../tx/record.js';
import { parseHex } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { deriveAddress, isKeyDerivedAddress } from '../crypto/address.js';
import { notFound, unavailable } from '../errors.js';
import type { CommitProgress } from './commit-progress.js';
import { evidenceStateKey } from './executor.js';
import { PastState } from './past-state.js';
import type { ProposedBlock } from './proposed-block.js';
import type { ValidatorSets } from './validator-sets.js';

export interface ChainQueriesDeps {
  readonly store: ChainStore;
  readonly tree: StateTree;
  readonly sets: ValidatorSets;
  readonly progress: CommitProgress;
  readonly params: ParamRegistry;
}

/**
 * The committed chain, read only: blocks, commit certificates, transactions, events, plugin
 * indexes, state at the head or proven at a height, validator sets. What routes, catch-up, header
 * gossip, proven reads and tests read, so that nothing outside the chain core holds its store
 * (and none of them can write it).
 */
export class ChainQueries {
  constructor(private readonly d: ChainQueriesDeps) {}

  get head(): Readonly<ChainMeta> {
    return this.d.store.head;
  }

  /** The transactions this node holds and indexes (ChainStore.indexedTxCount). */
  get indexedTxCount(): number {
    return this.d.store.indexedTxCount;
  }

  /** The lowest height held with its transactions and commit certificate (ChainStore.firstFullHeight). */
  get firstFullHeight(): number {
    return this.d.store.firstFullHeight;
  }

  /** Committed state at the head. */
  get state(): StateSource {
    return this.d.store.state;
  }

  getBlock(height: number): Promise<BlockRecord | undefined> {
    return this.d.store.getBlock(height);
  }

  getBlockHeightByHash(hash: string): Promise<number | undefined> {
    return this.d.store.getBlockHeightByHash(hash);
  }

  /** The encoded commit certificate that decided block `height`. */
  getCommit(height: number): Promise<Uint8Array | undefined> {
    return this.d.store.getCommit(height);
  }

  getTx(hash: string): Promise<StoredTx | undefined> {
    return this.d.store.getTx(hash);
  }

  getTxFields(hash: string): Promise<{ tx: TxFields; receipt: Receipt } | undefined> {
    return this.d.store.getTxFields(hash);
  }

  getBlockEvents(height: number): Promise<BlockEvent[]> {
    return this.d.store.getBlockEvents(height);
  }

  getTxEvents(height: number, txHash: string): Promise<BlockEvent[]> {
    return this.d.store.getTxEvents(height, txHash);
  }

  pluginIndex(namespace: string): IndexReader {
    return this.d.store.pluginIndex(namespace);
  }

  getTotals(address: string): Promise<AddressTotals> {
    return this.d.store.getTotals(address);
  }

  validatorActivity(address: string): Promise<ValidatorActivity> {
    return this.d.store.validatorActivity(address);
  }

  get trustWindowBlocks(): number {
    return this.d.store.trustWindowBlocks;
  }

  get activityCountedFrom(): number {
    return this.d.store.activityCountedFrom;
  }

  addressTxHashes(address: string, offset: number, limit: number): Promise<string[]> {
    return this.d.store.addressTxHashes(address, offset, limit);
  }

  countAddressTxs(address: string): Promise<number> {
    return this.d.store.countAddressTxs(address);
  }

  latestTxHashes(offset: number, limit: number): Promise<string[]> {
    return this.d.store.latestTxHashes(offset, limit);
  }

  matchingTxHashes(address: string | undefined, matches: (target: string) => boolean, offset: number, limit: number): Promise<TxPage> {
    return this.d.store.matchingTxHashes(address, matches, offset, limit);
  }

  /** A kernel or plugin parameter as committed state holds it. */
  param(key: string): Promise<bigint> {
    return this.d.params.reader(this.d.store.state).get(key);
  }

  /** The set that signs the next block (height head + 1). */
  validatorSet(): Promise<Validator[]> {
    return this.d.sets.at(this.head.height + 1);
  }

  /** The set in force at `height` (ValidatorSets.at): known up to head + SET_CHANGE_DELAY. */
  validatorSetAt(height: number): Promise<Validator[]> {
    return this.d.sets.at(height);
  }

  /** The record `address` held at `height`; undefined when it was not in that height's set. */
  validatorAt(address: string, height: number): Promise<Validator | undefined> {
    return this.d.sets.validatorAt(address, height);
  }

  /** Whether a block already applied this piece of evidence (each applies once). */
  async evidenceApplied(hash: string): Promise<boolean> {
    return (await this.d.store.state.get(evidenceStateKey(hash))) !== undefined;
  }

  /** A committed block as its proposal (header, transactions, evidence), for peers catching up. */
  async loadProposedBlock(height: number): Promise<ProposedBlock | undefined> {
    const record = await this.d.store.getBlock(height);
    if (!record) return undefined;
    // Reads in parallel: each is a LevelDB get and, for an older block, a text-log read.
    const stored = await Promise.all(record.tx_hashes.map((h) => this.d.store.getTx(h)));
    const txs: Tx[] = stored.map((st, i) => {
      if (!st) throw new Error(`store integrity: transaction ${record.tx_hashes[i]} of block ${height} is missing`);
      return st.tx;
    });
    return { header: record.header, hash: record.hash, txs, evidence: record.evidence ?? [] };
  }

  /** The public key of a signed transaction of `address`'s recent history that derives it (ChainAccess.derivedKeyOf). */
  async derivedKeyOf(address: string, within = 100): Promise<string | undefined> {
    if (!isKeyDerivedAddress(address)) return undefined;
    for (const hash of await this.d.store.addressTxHashes(address, 0, within)) {
      const stored = await this.d.store.getTx(hash);
      const pk = stored?.tx.origin === 'signed' ? stored.tx.body.public_key : undefined;
      const bytes = typeof pk === 'string' ? parseHex(pk) : null;
      if (bytes !== null && deriveAddress(bytes) === address) return (pk as string).toLowerCase();
    }
    return undefined;
  }

  /**
   * The state at height head − 1 (decisions.md §84), the newest one a committed header (the
   * head block's `prev_state_root`) carries. 503 before block 1 and, after a restart, until this
   * node commits a block (it needs to know which keys the head block wrote).
   */
  async pastState(): Promise<PastState> {
    const progress = this.d.progress;
    for (;;) {
      const sequence = progress.sequence;
      if (sequence % 2 === 1) {
        await progress.settled();
        continue;
      }
      const head = this.head;
      if (head.height < 1) throw unavailable('no block is committed yet: a proven read needs the header of block 1', 'retry once the chain has a block');
      const changed = progress.lastChanged;
      if (changed?.height !== head.height) throw unavailable('this node serves proven reads once it has committed a block since it started', 'retry after the next block');
      const block = await this.d.store.getBlock(head.height);
      if (progress.sequence !== sequence) continue;
      if (!block) throw new Error(`store integrity: head block ${head.height} is missing`);
      const deps = { treeGet: (root: Uint8Array, key: Uint8Array) => this.d.tree.get(root, key), head: this.d.store.state, sequence: () => progress.sequence };
      return new PastState(deps, head.height - 1, parseHex(block.header.prev_state_root, 32)!, changed.keys, sequence);
    }
  }

  /** One proven-read entry (§84): the key's bytes at the view's height and their proof under its root. */
  async provenEntry(view: PastState, key: string): Promise<{ key: string; exists: boolean; value_hex: string | null; proof: unknown }> {
    const keyBytes = utf8Bytes(key);
    const [value, proof] = await Promise.all([this.d.tree.get(view.root, keyBytes), this.d.tree.prove(view.root, keyBytes)]);
    return { key, exists: value !== undefined, value_hex: value === undefined ? null : Buffer.from(value).toString('hex'), proof };
  }

  /**
   * Membership (or non-membership) proof of a state key under block `height`'s state root (decisions.md
   * §66; the head's when omitted). Every old root stays readable (state/tree/README.md), so any
   * committed height this node holds the block of is provable; 404 above the head and below what a
   * node started from a snapshot holds.
   */
  async proveState(key: string, height?: number): Promise<Record<string, unknown>> {
    const head = this.head;
    let at: { height: number; state_root: string } = head;
    if (height !== undefined && height !== head.height) {
      if (height > head.height) throw notFound(`block ${height} not found (latest is ${head.height})`, 'ask for a height at or below the head, or leave height out for the head');
      const block = await this.d.store.getBlock(height);
      if (!block) throw notFound(`this node holds no block at height ${height} (it started from a later snapshot)`, 'ask a node that holds the chain from genesis');
      at = { height, state_root: block.state_root };
    }
    const root = parseHex(at.state_root, 32)!;
    const keyBytes = utf8Bytes(key);
    // Value and proof both from the tree at one root, so they agree whatever commits meanwhile.
    let value: Uint8Array | undefined;
    let proof: Awaited<ReturnType<StateTree['prove']>>;
    try {
      [value, proof] = await Promise.all([this.d.tree.get(root, keyBytes), this.d.tree.prove(root, keyBytes)]);
    } catch (e) {
      // A node restored from a snapshot holds no tree nodes of the roots before it.
      if (e instanceof MissingNodeError) throw notFound(`this node holds no state at height ${at.height} (it started from a later snapshot)`, 'ask a node that holds the chain from genesis');
      throw e;
    }
    return {
      key,
      height: at.height,
      state_root: at.state_root,
      exists: value !== undefined,
      value_hex: value === undefined ? null : Buffer.from(value).toString('hex'),
      // decisions.md §66: an object {leaf, siblings}, not JSON text.
      proof: parseStateProof(proof),
    };
  }
}
