import type { ParamReader, ParamSpec } from '../state/params.js';
import { KERNEL_NAMESPACES } from '../host/kernel-namespaces.js';

/**
 * The price of state growth (issue 29 item 8): every node keeps every byte of state for ever, so
 * a transaction that adds bytes pays for them, whatever plugin wrote them (a contract's code and
 * storage, an operation's records, a proposal's text).
 *
 * The charge is on the net new bytes a transaction leaves in plugins' state (key and value sizes
 * of what it writes, less what those keys held before; a deletion counts negative), measured by
 * the kernel on the transaction's own overlay after its handler ran, so no plugin can forget it
 * or be priced twice. Not counted (docs/decisions.md, local decision L1):
 * - the kernel's own records (`KERNEL_NAMESPACES`: an account, a key binding, a nonce): their
 *   size per transaction is fixed by the kernel and part 1's fees (a transfer's 21 gas) pay them;
 * - bytes a plugin declares sized by the protocol (`ctx.protocolSizedBytes`: an ML-DSA-65 public
 *   key's hex, a shipped template's code, a counterparty's validator keys), which the sender
 *   cannot make larger;
 * - `storage_free_bytes` (4 096) per transaction: the largest record an ordinary operation of
 *   parts 1–2 writes besides those (a pool's creation, ~2.3 KB) with room for schema-long names.
 * Beyond, each byte costs `storage_byte_price` ucoin: a 256 KiB deploy ~2.6 COIN, 8 KiB of
 * contract storage in one call ~0.04 COIN, a 15 KB proposal ~0.1 COIN.
 *
 * The storage fee is its own amount, not gas (fee = gas × gas_price stays what part 1 says): it
 * is taken from the acting account (never a sponsor or vault paying its fee, whose exposure is
 * the fee it was checked for) inside the transaction, burned, counted in the block's
 * `fees_burned` and the chain's `total_burned`, and shown on the receipt as `storage_fee`. An
 * account that cannot pay it fails the transaction in the block (its writes roll back; fee and nonce
 * are kept).
 */
export const STORAGE_BYTE_PRICE_PARAM = 'storage_byte_price';
export const STORAGE_FREE_BYTES_PARAM = 'storage_free_bytes';

export const STATE_GROWTH_PARAMS: readonly ParamSpec[] = [
  { key: STORAGE_BYTE_PRICE_PARAM, default: 10n, min: 0n, max: 1_000_000_000n, description: 'ucoin per net new byte of state a transaction stores beyond storage_free_bytes, burned (0: no charge)' },
  { key: STORAGE_FREE_BYTES_PARAM, default: 4_096n, min: 0n, max: 1_000_000_000n, description: 'net new bytes of plugin state one transaction may store without a storage fee (besides what its plugins declare sized by the protocol)' },
];

export interface StoragePrice {
  readonly bytePrice: bigint;
  readonly freeBytes: bigint;
}

export async function readStoragePrice(params: ParamReader): Promise<StoragePrice> {
  const [bytePrice, freeBytes] = await Promise.all([params.get(STORAGE_BYTE_PRICE_PARAM), params.get(STORAGE_FREE_BYTES_PARAM)]);
  return { bytePrice, freeBytes };
}

/**
 * The storage fee of `netNewBytes` of plugin state (0 within the allowance, and for state that
 * shrinks); `protocolSized` bytes of them, declared by the plugins that wrote them, are free too.
 */
export function storageFeeOf(netNewBytes: bigint, price: StoragePrice, protocolSized = 0n): bigint {
  const free = price.freeBytes + protocolSized;
  return netNewBytes > free ? (netNewBytes - free) * price.bytePrice : 0n;
}

/** Whether a state key's bytes are priced as growth: every plugin's, none of the kernel's own records. */
export function isPricedKey(key: string): boolean {
  const slash = key.indexOf('/');
  return !KERNEL_NAMESPACES.includes(slash < 0 ? key : key.slice(0, slash));
}

/** The storage fee a transaction that adds `netNewBytes` to state will pay at the parameters `params` hold (admission checks, estimates). */
export async function storageFee(params: ParamReader, netNewBytes: number | bigint): Promise<bigint> {
  return storageFeeOf(BigInt(netNewBytes), await readStoragePrice(params));
}
