import { LRUCache } from 'lru-cache';
import { accountStateKeys } from '../state/accounts.js';
import { isAddress } from '../crypto/address.js';

/** What a transaction names: sender and recipient (a relayed body's fields, or a rebuilt `Tx`'s). */
export interface Parties {
  readonly from?: unknown;
  readonly to?: unknown;
}

type Role = 'from' | 'to';

/** Where a party's address stands in a learned key: characters no state key holds. */
const SLOT: Readonly<Record<Role, string>> = { from: '\u0000from\u0000', to: '\u0000to\u0000' };
/** An address inside a state key: `chain:` up to the next separator. */
const ADDRESS = /chain:[^/|\s]+/g;
/** Keys learned per transaction at most, and how often a shape must miss before it is learned. */
const MAX_LEARNED = 16;
const LEARN_AFTER = 3;

/** Only well-formed addresses: a submission not yet checked must not make the node read (and cache) arbitrary keys. */
const partyOf = (value: unknown): string | undefined => (isAddress(value) ? value : undefined);

/**
 * The committed state keys a batch of transactions (a relay batch, a block) will read, to fetch
 * them in one LevelDB call before they run: each sender's and recipient's account record and
 * bound key, which every transfer reads, and the keys learned from what missed the cache before
 * (a plugin's record of the sender, such as a sponsor's `paidby/<address>` or the sentinel's
 * `recent/<address>`): a key read on a miss that holds the address of a party of a recent batch
 * becomes a shape, `sponsor/paidby/<from>`, read ahead for every later transaction once it has
 * missed `LEARN_AFTER` times. The list only says what to fetch ahead: a key left out is read when
 * needed and one not needed is a wasted read, never a different result (store/state-reads.ts).
 */
export class ReadAhead {
  /** The role of each address recent batches named, to recognise it inside a key read later. */
  private readonly roles = new LRUCache<string, Role>({ max: 8192 });
  /** Shapes seen missing, and how often. */
  private readonly candidates = new Map<string, number>();
  private readonly learned: string[] = [];

  /** The keys to read ahead for `txs`, each once. */
  keysOf(txs: Iterable<Parties>): string[] {
    const keys = new Set<string>();
    for (const tx of txs) {
      const from = partyOf(tx.from);
      const to = partyOf(tx.to);
      for (const [address, role] of [
        [from, 'from'],
        [to, 'to'],
      ] as const) {
        if (address === undefined) continue;
        this.roles.set(address, role);
        for (const key of accountStateKeys(address)) keys.add(key);
      }
      for (const shape of this.learned) {
        const key = fill(shape, from, to);
        if (key !== undefined) keys.add(key);
      }
    }
    return [...keys];
  }

  /** A committed state key read on a cache miss: learns its shape if it names a recent party; answers the shape when this miss taught it. */
  missed(key: string): string | undefined {
    if (this.learned.length >= MAX_LEARNED) return undefined;
    let named = false;
    const shape = key.replace(ADDRESS, (address) => {
      const role = this.roles.get(address);
      if (role === undefined) return address;
      named = true;
      return SLOT[role];
    });
    if (!named || this.learned.includes(shape)) return undefined;
    const seen = (this.candidates.get(shape) ?? 0) + 1;
    if (seen < LEARN_AFTER) {
      // Bounded: shapes that never come back are forgotten wholesale.
      if (this.candidates.size >= 256) this.candidates.clear();
      this.candidates.set(shape, seen);
      return undefined;
    }
    this.candidates.delete(shape);
    this.learned.push(shape);
    return shape;
  }

  /** The shapes learned so far (for tests and diagnostics). */
  get shapes(): readonly string[] {
    return this.learned;
  }
}

/** A learned shape with this transaction's parties in their slots; undefined when it needs one the transaction lacks. */
function fill(shape: string, from: string | undefined, to: string | undefined): string | undefined {
  let key = shape;
  if (key.includes(SLOT.from)) {
    if (from === undefined) return undefined;
    key = key.split(SLOT.from).join(from);
  }
  if (key.includes(SLOT.to)) {
    if (to === undefined) return undefined;
    key = key.split(SLOT.to).join(to);
  }
  return key;
}
