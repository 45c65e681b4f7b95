import { ChainError } from '../errors.js';
import type { StateOverlay, StateSource } from './overlay.js';
import { jsonRecord } from './record-codec.js';

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
const codec = jsonRecord<AccountRecord>();
const EMPTY: AccountRecord = { balance: 0n, nonce: 0n, tx_count: 0 };

export interface AccountsReader {
  get(address: string): Promise<AccountRecord>;
  exists(address: string): Promise<boolean>;
}

export interface AccountsWriter extends AccountsReader {
  credit(address: string, amount: bigint): Promise<void>;
  /** Throws a 400 ChainError when the balance is short. */
  debit(address: string, amount: bigint): Promise<void>;
  transfer(from: string, to: string, amount: bigint): Promise<void>;
  bindKey(address: string, publicKeyHex: string): Promise<void>;
  put(address: string, record: AccountRecord): void;
}

function key(address: string): string {
  return `${ACCOUNTS_NAMESPACE}/${address}`;
}

/**
 * Decoded records by the bytes object they were decoded from. The store's state cache and the
 * block overlay hand back the same object until the account is rewritten, and state bytes are
 * never mutated in place, so an account touched several times in a block (admission, nonce,
 * debit, credit, fee split) is parsed once; a key-bound account's JSON is ~4 KB.
 */
const decoded = new WeakMap<Uint8Array, AccountRecord>();

function decodeAccount(raw: Uint8Array): AccountRecord {
  let record = decoded.get(raw);
  if (record === undefined) {
    record = Object.freeze(codec.decode(raw));
    decoded.set(raw, record);
  }
  return { ...record };
}

export function accountsReader(source: StateSource): AccountsReader {
  return {
    async get(address) {
      const raw = await source.get(key(address));
      return raw === undefined ? { ...EMPTY } : decodeAccount(raw);
    },
    async exists(address) {
      return (await source.get(key(address))) !== undefined;
    },
  };
}

export function accountsWriter(overlay: StateOverlay): AccountsWriter {
  const reader = accountsReader(overlay);
  const put = (address: string, record: AccountRecord): void => overlay.set(key(address), codec.encode(record));
  const checkAmount = (amount: bigint): void => {
    if (amount < 0n) throw new ChainError(400, 'amount must not be negative');
  };
  return {
    ...reader,
    put,
    async credit(address, amount) {
      checkAmount(amount);
      const acct = await reader.get(address);
      put(address, { ...acct, balance: acct.balance + amount });
    },
    async debit(address, amount) {
      checkAmount(amount);
      const acct = await reader.get(address);
      if (acct.balance < amount) throw new ChainError(400, `insufficient balance: ${address} has ${acct.balance} ucoin, needs ${amount}`);
      put(address, { ...acct, balance: acct.balance - amount });
    },
    async transfer(from, to, amount) {
      await this.debit(from, amount);
      await this.credit(to, amount);
    },
    async bindKey(address, publicKeyHex) {
      const acct = await reader.get(address);
      put(address, { ...acct, public_key: publicKeyHex });
    },
  };
}
