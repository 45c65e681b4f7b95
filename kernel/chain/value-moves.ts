import { ChainError } from '../errors.js';
import type { AccountRecord, AccountsWriter, TransferOptions } from '../state/accounts.js';
import type { KeySet } from '../state/key-set.js';
import type { Signer } from '../context/signer.js';
import type { TransferIntent, TransferTakeover } from '../context/contexts.js';

/**
 * Every move of coins out of a transaction's signing account, seen in one place while the
 * transaction runs (decisions.md §95, §99). The transaction's contexts hand plugins an accounts
 * writer wrapped here, so whatever path moves value (an address kind's handler, an operation's
 * `execute`, a write method of another plugin) is
 *
 * - shown to `beforeTransfer` before the coins move, when they go to another account: the
 *   sentinel scores, refuses or holds it without knowing the plugin that moves it;
 * - counted: `debited` is what the transaction took from the account besides its fee, which a
 *   signer's grant receives in `onApplied` (a session key's `spent`, checked against its cap).
 *
 * A move out of another account that the signer spends from by the transaction's authority (a
 * vault's payout, `TransferOptions.onBehalf`) is shown and counted the same way.
 *
 * The kernel's own plain transfer asks `beforeTransfer` itself (executor.ts) and counts its value.
 */
export class ValueMoves {
  private taken = 0n;
  /** Set while a `beforeTransfer` tap runs: a hold's own debit is counted but not shown again. */
  private intercepting = false;

  constructor(
    private readonly watched: ReadonlySet<string>,
    private readonly signer: Signer,
    /** The address the transaction named, for a move that lands in `to` (a plain transaction's `to`). */
    private readonly recipientOf: (to: string) => string,
    private readonly ask: ((intent: TransferIntent) => Promise<TransferTakeover | undefined>) | undefined,
  ) {}

  /** What the transaction took from its signing account so far. */
  get debited(): bigint {
    return this.taken;
  }

  /** Counts a move the kernel made itself (its plain transfer). */
  count(amount: bigint): void {
    this.taken += amount;
  }

  /** `writer` with every move out of the signing account shown and counted. */
  wrap(writer: AccountsWriter): AccountsWriter {
    return new WatchedAccounts(writer, this);
  }

  /** WatchedAccounts' debit: the writer's, then counted when it leaves the signing account. */
  async debit(writer: AccountsWriter, address: string, amount: bigint): Promise<void> {
    await writer.debit(address, amount);
    if (this.watched.has(address)) this.taken += amount;
  }

  /** WatchedAccounts' transfer: shown to `beforeTransfer` first when it leaves for another account, then counted. */
  async transfer(writer: AccountsWriter, from: string, to: string, amount: bigint, options: TransferOptions | undefined): Promise<void> {
    const out = (this.watched.has(from) || options?.onBehalf === true) && to !== from;
    if (out && amount > 0n && this.ask !== undefined && !this.intercepting) {
      const holdable = options?.payment === true;
      this.intercepting = true;
      let taken: TransferTakeover | undefined;
      try {
        taken = await this.ask({ from, to, recipient: this.recipientOf(to), value: amount, signer: this.signer, holdable });
      } finally {
        this.intercepting = false;
      }
      if (taken !== undefined) {
        // A call's value or a deposit cannot wait: its recipient acts on the coins now.
        if (!holdable) throw new ChainError(500, `${taken.handledBy} took over a transfer of ${amount} ucoin to ${to} that cannot be held (not a plain payment)`);
        return;
      }
    }
    await writer.transfer(from, to, amount, options);
    if (out) this.taken += amount;
  }
}

/**
 * A transaction's accounts writer, its moves shown and counted by `moves`; every other method
 * is the writer's. A class (one object per transaction that touches accounts), not a spread.
 */
class WatchedAccounts implements AccountsWriter {
  constructor(
    private readonly writer: AccountsWriter,
    private readonly moves: ValueMoves,
  ) {}

  get(address: string): Promise<AccountRecord> {
    return this.writer.get(address);
  }

  getCore(address: string): Promise<Omit<AccountRecord, 'public_key'>> {
    return this.writer.getCore(address);
  }

  exists(address: string): Promise<boolean> {
    return this.writer.exists(address);
  }

  mainKeys(address: string, derivedKey?: string): Promise<KeySet> {
    return this.writer.mainKeys(address, derivedKey);
  }

  credit(address: string, amount: bigint): Promise<void> {
    return this.writer.credit(address, amount);
  }

  debit(address: string, amount: bigint): Promise<void> {
    return this.moves.debit(this.writer, address, amount);
  }

  transfer(from: string, to: string, amount: bigint, options?: TransferOptions): Promise<void> {
    return this.moves.transfer(this.writer, from, to, amount, options);
  }

  bindKey(address: string, publicKeyHex: string): Promise<void> {
    return this.writer.bindKey(address, publicKeyHex);
  }

  put(address: string, record: AccountRecord): void {
    this.writer.put(address, record);
  }

  setMainKeys(address: string, set: KeySet): void {
    this.writer.setMainKeys(address, set);
  }
}
