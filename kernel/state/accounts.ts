import { ChainError } from '../errors.js';
import { parseHex, toHex } from '../codec/hex.js';
import type { StateOverlay, StateSource } from './overlay.js';
import { jsonRecord } from './record-codec.js';
import { ML_DSA65_PUBLIC_KEY_BYTES } from '../crypto/provider.js';
import { listMainKeys, writeKeySet, type KeySet } from './key-set.js';

/**
 * Balances, nonces and key bindings: the one piece of state the kernel itself owns, because fees
 * and transfers need it. Plugins move coins only through `AccountsWriter`, like Lisk's token
 * module methods, so no plugin can mint or burn by writing bytes.
 */
export interface AccountRecord {
  balance: bigint;
  /** Last confirmed plain-transaction nonce (0 before the first). */
  nonce: bigint;
  tx_count: number;
  /** Hex public key bound by the faucet or a registration; absent for key-derived addresses. */
  public_key?: string;
}

export const ACCOUNTS_NAMESPACE = 'acct';
/**
 * A bound public key lives under its own key, as raw bytes. Inside the account record its ~3.9 KB
 * of hex was re-encoded, re-parsed, re-hashed into the state tree and re-written to LevelDB with
 * every balance change, i.e. several times per transfer, for a value that is written once.
 */
export const ACCOUNT_KEYS_NAMESPACE = 'acctkey';
type StoredAccount = Omit<AccountRecord, 'public_key'>;
const codec = jsonRecord<StoredAccount>();
const EMPTY: StoredAccount = { balance: 0n, nonce: 0n, tx_count: 0 };

export interface AccountsReader {
  get(address: string): Promise<AccountRecord>;
  /** Balance, nonce and tx_count only: one read, the bound key neither read nor hex-encoded (hot paths such as scoring every transfer). */
  getCore(address: string): Promise<Omit<AccountRecord, 'public_key'>>;
  exists(address: string): Promise<boolean>;
  /**
   * The main keys of `address` (kernel/state/key-set.ts): the explicit set, else the bound key,
   * else `derivedKey` when given (a plugin passes a key it knows derives the address). Plugins
   * that judge who signed (session keys, identity views) read keys here, not from raw state.
   */
  mainKeys(address: string, derivedKey?: string): Promise<KeySet>;
}

/** How a plugin's transfer may be treated while a transaction runs (kernel/chain/value-moves.ts). */
export interface TransferOptions {
  /**
   * A plain payment: nothing is given for the coins, so a `beforeTransfer` tap (the sentinel)
   * may hold them and credit `to` later (a transfer to a `.node` credited to its owner). Leave it
   * out when the recipient acts on the coins at once (a call's value, a deposit, an escrow).
   */
  readonly payment?: boolean;
  /**
   * `from` is not the transaction's signing account but one the signer spends from by the
   * transaction's authority (a vault's payout its members decided, decisions.md §43–44): the move
   * is shown to `beforeTransfer` and counted as what the transaction took, exactly like a move
   * out of the signing account (§95, §99), so the sentinel scores it and a session key's cap
   * counts it.
   */
  readonly onBehalf?: boolean;
}

export interface AccountsWriter extends AccountsReader {
  credit(address: string, amount: bigint): Promise<void>;
  /** Throws a 400 ChainError when the balance is short. */
  debit(address: string, amount: bigint): Promise<void>;
  /**
   * In a transaction's context, coins leaving its signing account for another account are shown
   * to `beforeTransfer` first (a tap may refuse, or hold a `payment`) and counted as what the
   * transaction took from the account.
   */
  transfer(from: string, to: string, amount: bigint, options?: TransferOptions): Promise<void>;
  /** Binds (or rebinds) the key that may sign for `address`: lowercase hex ML-DSA-65 public key. */
  bindKey(address: string, publicKeyHex: string): Promise<void>;
  /** Writes balance, nonce and tx_count; `public_key` is ignored (a binding changes only through bindKey). */
  put(address: string, record: AccountRecord): void;
  /** Replaces the main keys of `address` with an explicit set: key rotation and recovery, in consensus. */
  setMainKeys(address: string, set: KeySet): void;
}

function key(address: string): string {
  return `${ACCOUNTS_NAMESPACE}/${address}`;
}

/**
 * The state key and stored bytes of a fresh account holding `balance`, exactly as `credit` would
 * write them into empty state: for writers that create many accounts at once without an overlay
 * (the genesis account ranges, kernel/chain/genesis-accounts.ts).
 */
export function freshAccountEntry(address: string, balance: bigint): readonly [string, Uint8Array] {
  return [key(address), codec.encode({ ...EMPTY, balance })];
}

function keyOfKey(address: string): string {
  return `${ACCOUNT_KEYS_NAMESPACE}/${address}`;
}

/**
 * The state keys a read of `address`'s account touches (its record and its bound key): what a
 * prefetch fills before a block or a relay batch reads them (store/state-reads.ts).
 */
export function accountStateKeys(address: string): readonly [string, string] {
  return [key(address), keyOfKey(address)];
}

const hexOfKey = new WeakMap<Uint8Array, string>();

/** Hex of stored key bytes, once per bytes object (the state cache hands back the same one). */
function publicKeyHex(raw: Uint8Array): string {
  let hex = hexOfKey.get(raw);
  if (hex === undefined) {
    hex = toHex(raw);
    hexOfKey.set(raw, hex);
  }
  return hex;
}

/**
 * Decoded records by the bytes object they were decoded from. The store's state cache and the
 * block overlay hand back the same object until the account is rewritten, and state bytes are
 * never mutated in place, so an account touched several times in a block (admission, nonce,
 * debit, credit, fee split) is parsed once.
 */
const decoded = new WeakMap<Uint8Array, StoredAccount>();

function decodeAccount(raw: Uint8Array): StoredAccount {
  let record = decoded.get(raw);
  if (record === undefined) {
    record = Object.freeze(codec.decode(raw));
    decoded.set(raw, record);
  }
  return record;
}

const keySetCodec = jsonRecord<{ keys: string[] }>();

/**
 * The key shown as an account's `public_key`: the bound key, or the first of a key set a plugin
 * wrote in its place (kernel/state/key-set.ts keeps both under this one state key).
 */
function boundKeyHex(raw: Uint8Array): string | undefined {
  return raw.length === ML_DSA65_PUBLIC_KEY_BYTES ? publicKeyHex(raw) : keySetCodec.decode(raw).keys[0];
}

/**
 * Classes with their methods on the prototype: a block's transactions each run on a child
 * overlay, so a reader and a writer are made per transaction that touches accounts; built from
 * closures and spreads each cost a few kilobytes a transaction.
 */
class SourceAccounts implements AccountsReader {
  constructor(protected readonly source: StateSource) {}

  async get(address: string): Promise<AccountRecord> {
    const [raw, rawKey] = await Promise.all([this.source.get(key(address)), this.source.get(keyOfKey(address))]);
    const { balance, nonce, tx_count } = raw === undefined ? EMPTY : decodeAccount(raw);
    if (rawKey === undefined) return { balance, nonce, tx_count };
    const first = boundKeyHex(rawKey);
    return first === undefined ? { balance, nonce, tx_count } : { balance, nonce, tx_count, public_key: first };
  }

  async getCore(address: string): Promise<Omit<AccountRecord, 'public_key'>> {
    const raw = await this.source.get(key(address));
    return raw === undefined ? { ...EMPTY } : decodeAccount(raw);
  }

  async exists(address: string): Promise<boolean> {
    return (await this.source.get(key(address))) !== undefined || (await this.source.get(keyOfKey(address))) !== undefined;
  }

  mainKeys(address: string, derivedKey?: string): Promise<KeySet> {
    return listMainKeys(this.source, address, derivedKey);
  }
}

export function accountsReader(source: StateSource): AccountsReader {
  return new SourceAccounts(source);
}

const checkAmount = (amount: bigint): void => {
  if (amount < 0n) throw new ChainError(400, 'amount must not be negative');
};

class OverlayAccounts extends SourceAccounts implements AccountsWriter {
  constructor(private readonly overlay: StateOverlay) {
    super(overlay);
  }

  // Only the three fields: a record read with get() carries public_key, and spreading it into
  // put() must not write it into the account record.
  put(address: string, record: AccountRecord): void {
    this.overlay.set(key(address), codec.encode({ balance: record.balance, nonce: record.nonce, tx_count: record.tx_count }));
  }

  setMainKeys(address: string, set: KeySet): void {
    writeKeySet(this.overlay, address, set);
  }

  async credit(address: string, amount: bigint): Promise<void> {
    checkAmount(amount);
    // The core record only: put() writes balance, nonce and tx_count, so the bound key is not read.
    const acct = await this.getCore(address);
    this.put(address, { ...acct, balance: acct.balance + amount });
  }

  async debit(address: string, amount: bigint): Promise<void> {
    checkAmount(amount);
    const acct = await this.getCore(address);
    if (acct.balance < amount) throw new ChainError(400, `insufficient balance: ${address} has ${acct.balance} ucoin, needs ${amount}`);
    this.put(address, { ...acct, balance: acct.balance - amount });
  }

  async transfer(from: string, to: string, amount: bigint): Promise<void> {
    await this.debit(from, amount);
    await this.credit(to, amount);
  }

  async bindKey(address: string, hex: string): Promise<void> {
    // parseHex also takes uppercase and `0x`; a binding is the lowercase wire form only.
    const parsed = /^[0-9a-f]*$/.test(hex) ? parseHex(hex) : null;
    if (!parsed) throw new ChainError(400, 'public_key must be lowercase hex');
    // A copy: parseHex may return a view into Buffer's shared pool, and state values are cached.
    const bytes = parsed.slice();
    this.overlay.set(keyOfKey(address), bytes);
    // The hex is what a later get() returns: remember it for the bytes just written.
    hexOfKey.set(bytes, hex);
  }
}

export function accountsWriter(overlay: StateOverlay): AccountsWriter {
  return new OverlayAccounts(overlay);
}
