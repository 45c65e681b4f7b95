import type { ParamReader, ParamSpec } from '../state/params.js';

/**
 * The price of state growth (issue 29 item 8): every node keeps every byte of state for ever, so
 * a transaction that adds bytes pays for them, whatever plugin wrote them (a contract's code and
 * storage, an operation's records, a proposal's text).
 *
 * The charge is on the net new bytes a transaction leaves in state (key and value sizes of what
 * it writes, less what those keys held before; a deletion counts negative), measured by the
 * kernel on the transaction's own overlay after its handler ran, so no plugin can forget it or
 * be priced twice. A free allowance per transaction keeps ordinary operations at their spec fee
 * (the largest a client of parts 1–2 makes is the first deploy of the shipped token template,
 * ~12.7 KB; a name, a stake, a node with its consensus key are well under 5 KB); beyond it, each
 * byte costs `storage_byte_price` ucoin: the defaults price a 256 KiB deploy at ~2.5 COIN.
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
  { key: STORAGE_FREE_BYTES_PARAM, default: 16_384n, min: 0n, max: 1_000_000_000n, description: 'net new bytes of state one transaction may store without a storage fee' },
];

export interface StoragePrice {
  readonly bytePrice: bigint;
  readonly freeBytes: bigint;
}

export async function readStoragePrice(params: ParamReader): Promise<StoragePrice> {
  const [bytePrice, freeBytes] = await Promise.all([params.get(STORAGE_BYTE_PRICE_PARAM), params.get(STORAGE_FREE_BYTES_PARAM)]);
  return { bytePrice, freeBytes };
}

/** The storage fee of `netNewBytes` (0 within the allowance, and for state that shrinks). */
export function storageFeeOf(netNewBytes: bigint, price: StoragePrice): bigint {
  return netNewBytes > price.freeBytes ? (netNewBytes - price.freeBytes) * price.bytePrice : 0n;
}

/** The storage fee a transaction that adds `netNewBytes` to state will pay at the parameters `params` hold (admission checks, estimates). */
export async function storageFee(params: ParamReader, netNewBytes: number | bigint): Promise<bigint> {
  return storageFeeOf(BigInt(netNewBytes), await readStoragePrice(params));
}
