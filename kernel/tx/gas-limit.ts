import { badRequest } from '../errors.js';
import type { Tx } from '../model/types.js';

/**
 * A transaction's gas limit: the most gas it may use, which its fee is reserved for before it
 * runs and which it is charged in full when its handler reports more (out of gas). A plain
 * transaction or an operation declares it in the optional body field `gas_limit` (part 1's body
 * table does not list it, so a client that never sends it sees nothing change); one that declares
 * none is limited to its base gas. Blocks are packed and bounded (`max_block_gas`) by limits, so
 * the gas a block really uses never exceeds the bound.
 */
export const GAS_LIMIT_FIELD = 'gas_limit';

/** A declared gas_limit as it arrives: absent, or a positive safe integer (400 otherwise). */
export function parseGasLimit(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 1) throw badRequest('gas_limit must be a positive integer number of gas units');
  return raw;
}

/**
 * The gas_limit a signed transaction declares. Its body passed `parseGasLimit` when it was
 * admitted or rebuilt from a block, so the field is read, not checked again. System
 * transactions pay no gas and have none.
 */
export function declaredGasLimit(tx: Pick<Tx, 'origin' | 'body'>): number | undefined {
  if (tx.origin !== 'signed') return undefined;
  const limit = tx.body[GAS_LIMIT_FIELD];
  return typeof limit === 'number' ? limit : undefined;
}

/**
 * A limit below the gas charged before the handler runs could not pay for the transaction's own
 * checks: admission refuses it, and so does a validator that finds it in a block.
 */
export function gasLimitBelowBase(declared: number, base: number): string | undefined {
  return declared < base ? `gas_limit ${declared} is below the ${base} gas this transaction is charged before it runs` : undefined;
}
