/** 1 COIN = 1 000 000 ucoin. Amounts are bigint inside and integers on the wire. */
export const UCOIN_PER_COIN = 1_000_000n;

/** The `*_human` string beside every amount: COIN with up to six decimals, trailing zeros dropped. */
export function formatCoin(ucoin: bigint): string {
  const negative = ucoin < 0n;
  const abs = negative ? -ucoin : ucoin;
  const whole = abs / UCOIN_PER_COIN;
  const frac = (abs % UCOIN_PER_COIN).toString().padStart(6, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? '.' + frac : ''} COIN`;
}

/** A JSON number that is a non-negative safe integer, as a bigint; null when it is not one. */
export function wireAmount(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value >= 0n ? value : null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return null;
  return BigInt(value);
}

/**
 * An amount written by a person (an environment variable): whole ucoin (`50000000`) or COIN with
 * up to six decimals and the unit (`50 COIN`, `0.5 COIN`). Null for anything else.
 */
export function parseAmountText(text: string): bigint | null {
  const t = text.trim();
  if (/^\d+$/.test(t)) return BigInt(t);
  const m = /^(\d+)(?:\.(\d{1,6}))?\s*COIN$/i.exec(t);
  if (!m) return null;
  return BigInt(m[1]!) * UCOIN_PER_COIN + BigInt((m[2] ?? '').padEnd(6, '0'));
}
