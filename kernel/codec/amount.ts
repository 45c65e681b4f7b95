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
  const m = /^(\S+?)\s*COIN$/i.exec(t);
  if (!m) return null;
  const coin = parseCoinDecimal(m[1]!);
  return coin.ok ? coin.ucoin : null;
}

/** An amount of COIN read from decimal text, or why the text is none. */
export type CoinDecimal = { readonly ok: true; readonly ucoin: bigint } | { readonly ok: false; readonly reason: string };

/**
 * COIN written in decimal (`"12"`, `"0.123457"`, leading zeros allowed) as ucoin, computed on the
 * digits with integers (never through floating point, where 1.005 COIN is 1004999.99… ucoin): a
 * run of digits, optionally a `.` and 1 to 6 more (ucoin is a millionth of a COIN, so a seventh
 * decimal has no ucoin to name). No sign, exponent, separator or space.
 */
export function parseCoinDecimal(text: string): CoinDecimal {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) {
    if (/^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(text)) return { ok: false, reason: `"${text}" is in exponent form: write the decimal digits (e.g. 0.000001)` };
    if (/^-/.test(text)) return { ok: false, reason: `"${text}" is negative` };
    return { ok: false, reason: `"${text}" is not a decimal number of COIN: digits, optionally a "." and 1 to 6 decimals` };
  }
  const decimals = m[2] ?? '';
  if (decimals.length > 6) return { ok: false, reason: `"${text}" has ${decimals.length} decimals: ucoin is the 6th decimal of a COIN (1 COIN = 1 000 000 ucoin), at most 6 decimals` };
  return { ok: true, ucoin: BigInt(m[1]!) * UCOIN_PER_COIN + BigInt(decimals.padEnd(6, '0')) };
}
