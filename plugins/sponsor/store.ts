import { sha3Hex0x } from '../../kernel/sdk.js';

/**
 * A sponsor's pool is a kernel account of its own, `chain:system.sponsor-pool.<15 hex>`: coins
 * move in and out only through `ctx.accounts`, the kernel debits fees from it like from any
 * payer, and no key derives it and no plain transfer can reach it (a system address that no
 * plugin serves), so only this plugin's operations touch it.
 */
export function poolAddress(sponsor: string): string {
  return `chain:system.sponsor-pool.${sha3Hex0x(sponsor).slice(2, 17)}`;
}

/** Whom a sponsor pays for: an account, or only one session key of it. */
export interface Sponsorship {
  readonly sponsor: string;
  readonly beneficiary: string;
  /** When set, only transactions signed by this session key of the beneficiary are paid. */
  readonly session_pk: string | null;
  readonly height: number;
}

/** The one sponsor of a beneficiary (an account is paid for by at most one pool, so the payer is never ambiguous). */
export function paidByPath(beneficiary: string): string {
  return `paidby/${beneficiary}`;
}

/** The sponsor's side, for listing whom it pays for. */
export function paysPath(sponsor: string, beneficiary: string): string {
  return `pays/${sponsor}/${beneficiary}`;
}

export const SPONSOR_TARGET = 'chain:system.sponsor';
