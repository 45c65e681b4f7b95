import { parseAmountText } from '../../kernel/codec/amount.js';

/**
 * An amount a person types on the command line: COIN as decimal text (`1.5`, `2`, `1.5 COIN`, up to
 * six decimals) or ucoin with its unit (`1500000ucoin`). Read as text, never as a floating-point
 * number, by the kernel's parser of amounts. Null when it is not one.
 */
export function parseCliAmount(text: string): bigint | null {
  const t = text.trim();
  const ucoin = /^(\d+)\s*ucoin$/i.exec(t);
  if (ucoin) return parseAmountText(ucoin[1]!);
  if (/^\d+(\.\d+)?$/.test(t)) return parseAmountText(`${t} COIN`);
  return /COIN$/i.test(t) ? parseAmountText(t) : null;
}
