import { operationOf, type BalanceHold, type Tx } from '../model/types.js';

/** A plain signed transfer: kept per sender in account-nonce order. Operations carry millisecond nonces instead. */
function isSequential(tx: Tx): boolean {
  return tx.origin === 'signed' && operationOf(tx) === undefined;
}

export class MempoolFullError extends Error {}

/** How many pending transactions that do not fit a block its selection looks past before it stops. */
export const MAX_PASSED_OVER = 4_096;

export interface MempoolLimits {
  readonly maxTxs: number;
  readonly maxPerSender: number;
  /**
   * Bytes of pending transactions' canonical texts (UTF-8). A count alone lets a burst of large
   * transactions (a pqclean transfer is ~10.6 KB, a contract deploy far more) hold hundreds of MiB.
   */
  readonly maxBytes?: number;
}

/** 64 MiB: ~6,000 pqclean-sized transfers, dozens of full blocks, a bounded share of a 1 GiB node. */
export const DEFAULT_MEMPOOL_MAX_BYTES = 64 * 2 ** 20;

/**
 * Pending transactions. Signed transfers are kept per sender in nonce order (a sender's nonces
 * are contiguous, so `next nonce` = confirmed + pending + 1); operations are kept per actor in
 * arrival order, which admission makes their millisecond-nonce order; system transactions
 * (faucet credits) queue first-in first-out. Selection for a block walks arrival order and never
 * takes a sender's nonce N+1 without N.
 */
export class Mempool {
  private readonly byHash = new Map<string, Tx>();
  private readonly bySender = new Map<string, Tx[]>();
  private readonly opsByActor = new Map<string, Tx[]>();
  /** The pending system transactions (relay writes) by target, each in arrival order: what `systemNamed` answers without a walk of the pool. */
  private readonly systemByTarget = new Map<string, Map<string, Tx>>();
  /** The pending signed transactions that hold some of each account's balance (`Tx.holds`). */
  private readonly holders = new Map<string, Set<Tx>>();
  /** Arrival order; entries removed lazily. */
  private readonly arrival: string[] = [];
  private arrivalHead = 0;
  private textBytes = 0;
  private readonly maxBytes: number;

  constructor(private readonly limits: MempoolLimits) {
    this.maxBytes = limits.maxBytes ?? DEFAULT_MEMPOOL_MAX_BYTES;
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Bytes of the pending transactions' canonical texts, what `maxBytes` bounds. */
  get bytes(): number {
    return this.textBytes;
  }

  has(hash: string): boolean {
    return this.byHash.has(hash);
  }

  get(hash: string): Tx | undefined {
    return this.byHash.get(hash);
  }

  pendingOf(sender: string): readonly Tx[] {
    return this.bySender.get(sender) ?? [];
  }

  /** An actor's pending operations, oldest (lowest nonce) first. */
  pendingOperationsOf(actor: string): readonly Tx[] {
    return this.opsByActor.get(actor) ?? [];
  }

  /** The pending operations of one type (`stake`, `swap`), in arrival order: node-local views (the exchange's open batch window). */
  operationsNamed(name: string): Tx[] {
    const out: Tx[] = [];
    for (const tx of this.byHash.values()) if (operationOf(tx) === name) out.push(tx);
    return out;
  }

  /** The pending system transactions (relay writes) of one target, in arrival order: node-local views. */
  systemNamed(target: string): Tx[] {
    return [...(this.systemByTarget.get(target)?.values() ?? [])];
  }

  /**
   * What a sender's pending transactions hold of its balance, for the admission balance check:
   * each one's `holds` naming the account (a declared debit such as a name's price, a fee it
   * pays for another actor), or for one without `holds` its value plus the fee of its gas limit.
   * A vault payout holds nothing of its proposer's balance: the vault pays it (decisions.md §43).
   */
  pendingSpend(account: string, gasLimitOf: (tx: Tx) => number): bigint {
    let total = 0n;
    for (const tx of this.holders.get(account) ?? []) {
      for (const h of holdsOf(tx, gasLimitOf)) if (h.account === account) total += h.amount;
    }
    return total;
  }

  nextNonce(sender: string, confirmedNonce: bigint): bigint {
    const pending = this.bySender.get(sender);
    return pending && pending.length > 0 ? pending[pending.length - 1]!.nonce + 1n : confirmedNonce + 1n;
  }

  add(tx: Tx): void {
    if (this.byHash.has(tx.hash)) return;
    if (this.byHash.size >= this.limits.maxTxs) throw new MempoolFullError(`mempool is full (${this.limits.maxTxs} transactions); try again shortly`);
    const size = textBytesOf(tx);
    if (this.textBytes + size > this.maxBytes) throw new MempoolFullError(`mempool is full (${this.maxBytes} bytes of pending transactions); try again shortly`);
    if (isSequential(tx)) {
      const list = this.bySender.get(tx.from) ?? [];
      if (list.length >= this.limits.maxPerSender) throw new MempoolFullError(`too many pending transactions from ${tx.from} (limit ${this.limits.maxPerSender})`);
      const last = list[list.length - 1];
      if (last && tx.nonce !== last.nonce + 1n) throw new Error(`mempool: nonce ${tx.nonce} does not follow ${last.nonce} for ${tx.from}`);
      list.push(tx);
      this.bySender.set(tx.from, list);
    } else if (tx.origin === 'signed') {
      const list = this.opsByActor.get(tx.from) ?? [];
      if (list.length >= this.limits.maxPerSender) throw new MempoolFullError(`too many pending operations from ${tx.from} (limit ${this.limits.maxPerSender})`);
      const last = list[list.length - 1];
      if (last && tx.nonce <= last.nonce) throw new Error(`mempool: operation nonce ${tx.nonce} is not above ${last.nonce} for ${tx.from}`);
      list.push(tx);
      this.opsByActor.set(tx.from, list);
    }
    this.byHash.set(tx.hash, tx);
    this.textBytes += size;
    this.arrival.push(tx.hash);
    if (tx.origin === 'system') {
      const byHash = this.systemByTarget.get(tx.target) ?? new Map<string, Tx>();
      byHash.set(tx.hash, tx);
      this.systemByTarget.set(tx.target, byHash);
    }
    if (tx.origin === 'signed') {
      for (const account of holdingAccounts(tx)) {
        const set = this.holders.get(account) ?? new Set<Tx>();
        set.add(tx);
        this.holders.set(account, set);
      }
    }
  }

  /**
   * Transactions for the next block, each sender's in nonce order, within the gas budget counted
   * in gas limits (what validators bound a block by: what the transactions may use, since what
   * they will use is known only once they ran) and the byte budget. Arrival order, but a
   * transaction that does not fit what is left is passed over and the walk goes on, so one large
   * declared limit cannot keep the smaller ones behind it out of the block (issue 29, item 7; its
   * unused part is paid for, executor.ts settleGas). A sender's later nonces wait behind one passed
   * over (they could not apply without it), and so do an actor's later operations (their
   * millisecond nonces would make it stale). At most `MAX_PASSED_OVER` are looked past, which
   * bounds the walk of a full pool once the block is full.
   */
  select(maxGas: number, gasLimitOf: (tx: Tx) => number, maxCount = Number.MAX_SAFE_INTEGER, maxBytes = Number.MAX_SAFE_INTEGER, sizeOf: (tx: Tx) => number = () => 0): Tx[] {
    const out: Tx[] = [];
    const taken = new Map<string, number>();
    const waiting = new Set<string>();
    let gas = 0;
    let bytes = 0;
    let passedOver = 0;
    for (let i = this.arrivalHead; i < this.arrival.length && out.length < maxCount && passedOver < MAX_PASSED_OVER; i++) {
      const tx = this.byHash.get(this.arrival[i]!);
      if (!tx) continue;
      if (isSequential(tx)) {
        // Arrival order matches nonce order per sender because admission enforces it.
        if (this.bySender.get(tx.from)?.[taken.get(tx.from) ?? 0] !== tx) continue;
      } else if (tx.origin === 'signed' && waiting.has(tx.from)) continue;
      const g = gasLimitOf(tx);
      const size = sizeOf(tx);
      // Also a limit no block can hold (max_block_gas lowered since admission): it and its
      // sender's later nonces are passed over, not everything behind them.
      if (g > maxGas - gas || size > maxBytes - bytes) {
        passedOver++;
        if (tx.origin === 'signed' && !isSequential(tx)) waiting.add(tx.from);
        continue;
      }
      if (isSequential(tx)) taken.set(tx.from, (taken.get(tx.from) ?? 0) + 1);
      gas += g;
      bytes += size;
      out.push(tx);
    }
    return out;
  }

  /** Drops transactions a committed block included. */
  removeCommitted(hashes: readonly string[]): void {
    for (const h of hashes) this.remove(h);
    this.compact();
  }

  /**
   * Drops a sender's pending transfers whose nonce the chain has taken (at or below
   * `confirmedNonce`), and only those: the ones after them may follow the chain now. Such a
   * transfer gets here when a block carrying it (or another of its nonce) commits while its copy
   * is still in admission (the nonce was checked before the plugins' checks were awaited);
   * evicting it with `evict` would take every later nonce of the sender along.
   */
  dropTaken(sender: string, confirmedNonce: bigint): Tx[] {
    const taken = (this.bySender.get(sender) ?? []).filter((t) => t.nonce <= confirmedNonce);
    for (const t of taken) this.remove(t.hash);
    if (taken.length > 0) this.compact();
    return taken;
  }

  /** Drops a transaction and, for a signed one, every later nonce of its sender (they can no longer apply). */
  evict(hash: string): Tx[] {
    const tx = this.byHash.get(hash);
    if (!tx) return [];
    const dropped: Tx[] = [];
    if (isSequential(tx)) {
      const list = this.bySender.get(tx.from) ?? [];
      for (const t of list.filter((t) => t.nonce >= tx.nonce)) {
        this.remove(t.hash);
        dropped.push(t);
      }
    } else {
      this.remove(hash);
      dropped.push(tx);
    }
    this.compact();
    return dropped;
  }

  senders(): string[] {
    return [...this.bySender.keys()].sort();
  }

  /** Actors with pending operations, sorted. */
  actors(): string[] {
    return [...this.opsByActor.keys()].sort();
  }

  private remove(hash: string): void {
    const tx = this.byHash.get(hash);
    if (!tx) return;
    this.byHash.delete(hash);
    this.textBytes -= textBytesOf(tx);
    if (tx.origin === 'system') {
      const byHash = this.systemByTarget.get(tx.target);
      byHash?.delete(hash);
      if (byHash?.size === 0) this.systemByTarget.delete(tx.target);
    }
    if (tx.origin === 'signed') {
      for (const account of holdingAccounts(tx)) {
        const set = this.holders.get(account);
        set?.delete(tx);
        if (set?.size === 0) this.holders.delete(account);
      }
      const lists = isSequential(tx) ? this.bySender : this.opsByActor;
      const list = (lists.get(tx.from) ?? []).filter((t) => t.hash !== hash);
      if (list.length === 0) lists.delete(tx.from);
      else lists.set(tx.from, list);
    }
  }

  private compact(): void {
    while (this.arrivalHead < this.arrival.length && !this.byHash.has(this.arrival[this.arrivalHead]!)) this.arrivalHead++;
    if (this.arrivalHead > 4096 && this.arrivalHead * 2 > this.arrival.length) {
      this.arrival.splice(0, this.arrivalHead);
      this.arrivalHead = 0;
    }
  }
}

function textBytesOf(tx: Tx): number {
  return Buffer.byteLength(tx.canonical, 'utf8');
}

/** The accounts a pending signed transaction holds balance of. */
function holdingAccounts(tx: Tx): Set<string> {
  return new Set(tx.holds === undefined ? [tx.from] : tx.holds.map((h) => h.account));
}

/** A pending transaction's holds: admission's, else its value and the fee of its gas limit from `from`. */
function holdsOf(tx: Tx, gasLimitOf: (tx: Tx) => number): readonly BalanceHold[] {
  return tx.holds ?? [{ account: tx.from, amount: tx.value + BigInt(gasLimitOf(tx)) * tx.gasPrice }];
}
