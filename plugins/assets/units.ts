import { formatCoin } from '../../kernel/sdk.js';
import { UCOIN } from './store.js';

/** What the `*_human` of an amount needs of its asset. */
export interface Denomination {
  readonly symbol: string;
  readonly decimals: number;
}

/** The native coin as an exchange asset (§55): symbol `COIN`, 6 decimals. */
export const COIN_DENOMINATION: Denomination = { symbol: 'COIN', decimals: 6 };

/**
 * The `*_human` of an asset amount (§55): the amount / 10^decimals in base 10, trailing fractional
 * zeros and a bare point dropped, a space, the symbol (1 250 000 of a 6-decimal `GOLD`:
 * `1.25 GOLD`). A `ucoin` amount keeps the node's COIN format.
 */
export function humanAmount(amount: bigint, asset: string, d: Denomination): string {
  if (asset === UCOIN) return formatCoin(amount);
  if (d.decimals === 0) return `${amount} ${d.symbol}`;
  const scale = 10n ** BigInt(d.decimals);
  const frac = (amount % scale).toString().padStart(d.decimals, '0').replace(/0+$/, '');
  return `${amount / scale}${frac ? `.${frac}` : ''} ${d.symbol}`;
}
