import { Type, type TSchema, type TString } from '@sinclair/typebox';

/**
 * Scores and confidences are fractions with four decimals on the wire (part 1, Transaction
 * scoring 1; decisions.md §92). Consensus holds them as basis points, and event data as this
 * text, since what runs in consensus holds no floating point: 8717n → "0.8717".
 */
export function fractionText(bp: bigint): string {
  const t = bp.toString().padStart(5, '0');
  return `${t.slice(0, -4)}.${t.slice(-4)}`;
}

/** The mark `FractionText` puts on its schema, which the gateway reads (below). */
const FRACTION_MARK = 'x-fraction-text';

/**
 * The schema of `fractionText` in an event's data. The gateway pushes such a field to its socket
 * clients as a JSON number (the same digits), so a score is a number on the socket as in every
 * REST answer (part 1, Transaction scoring 1).
 */
export function FractionText(description?: string): TString {
  return Type.String({ pattern: '^[0-9]+\\.[0-9]{4}$', [FRACTION_MARK]: true, ...(description !== undefined ? { description } : {}) });
}

/** Whether a field's schema is `FractionText`'s. */
export function isFractionText(schema: TSchema | undefined): boolean {
  return schema !== undefined && (schema as Record<string, unknown>)[FRACTION_MARK] === true;
}
