import { Type } from '@sinclair/typebox';
import { parseCoinDecimal } from '../../kernel/codec/amount.js';

/** The most a transaction body's `value` (a JSON number) can carry exactly. */
export const MAX_UCOIN = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * `amount_nro` of `ch_transfer`: COIN, as decimal text or a JSON number. It has no REST twin (the
 * REST body takes ucoin), so this schema is the tool's own; the rules that name the 6-decimal
 * limit and the bounds are `amountToUcoin`'s, so the model is told which rule it broke.
 */
export const AmountNro = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()], {
  description:
    'amount to send, in COIN (1 COIN = 1 000 000 ucoin): decimal text such as "0.123457" or "12" (preferred: exact), or a JSON number; at most 6 decimals, above zero, at most 9007199254.740991 COIN; no exponent form',
});

export type AmountResult = { readonly ok: true; readonly ucoin: bigint } | { readonly ok: false; readonly reason: string };

/**
 * decisions.md §80: COIN to ucoin on the digits, with integers. A JSON number goes through its
 * shortest decimal form (`String(n)`, what JavaScript writes for it): `1.005` is the text
 * "1.005" and so 1 005 000 ucoin, where `1.005 * 1e6` is 1004999.9999999999. Zero, negative,
 * exponent forms (`"1e-7"`, and `1e21`, whose shortest form is "1e+21"), more than 6 decimals and
 * more than 2^53 − 1 ucoin are refused with the rule named.
 */
export function amountToUcoin(amount: unknown): AmountResult {
  let text: string;
  if (typeof amount === 'string') text = amount;
  else if (typeof amount === 'number' && Number.isFinite(amount)) text = String(amount);
  else return { ok: false, reason: 'must be decimal text such as "0.5" or a JSON number, in COIN' };
  const parsed = parseCoinDecimal(text);
  if (!parsed.ok) return parsed;
  if (parsed.ucoin === 0n) return { ok: false, reason: `${JSON.stringify(amount)} is zero: send more than 0 COIN` };
  if (parsed.ucoin > MAX_UCOIN) return { ok: false, reason: `${JSON.stringify(amount)} is ${parsed.ucoin} ucoin, above 2^53 - 1 (${MAX_UCOIN}) ucoin, the most a transaction's value carries` };
  return parsed;
}
