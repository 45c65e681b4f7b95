import { Type, type Static } from '@sinclair/typebox';
import { defineStore, keyPart, sha3Hex0x } from '../../kernel/sdk.js';

/**
 * A sponsor's pool is a kernel account of its own, `chain:system.sponsor-pool.<15 hex>`: coins
 * move in and out only through `ctx.accounts`, the kernel debits fees from it like from any
 * payer, and no key derives it and no plain transfer can reach it (a system address that no
 * plugin serves), so only this plugin's operations touch it. The pools are accounts, not records
 * of this plugin: its state is only whom each sponsor pays for.
 */
export function poolAddress(sponsor: string): string {
  return `chain:system.sponsor-pool.${sha3Hex0x(sponsor).slice(2, 17)}`;
}

/** Whom a sponsor pays for: an account, or only one session key of it. */
const SponsorshipSchema = Type.Object({
  sponsor: Type.String(),
  beneficiary: Type.String(),
  /** When set, only transactions signed by this session key of the beneficiary are paid. */
  session_pk: Type.Union([Type.String(), Type.Null()]),
  height: Type.Integer({ minimum: 0 }),
});
export type Sponsorship = Static<typeof SponsorshipSchema>;

/** The one sponsor of a beneficiary (an account is paid for by at most one pool, so the payer is never ambiguous). */
export const paidBy = defineStore('sponsor', {
  name: 'paidBy',
  description: 'the sponsor whose pool pays the beneficiary\'s fees (read for every signed transaction: absent for most accounts)',
  key: ['paidby', keyPart.address('beneficiary')],
  value: SponsorshipSchema,
  // Read for every signed transaction's signer (absent for most): fetched with the accounts.
  readAhead: ['sender'],
});

/** The sponsor's side of the same record, for listing whom it pays for. */
export const pays = defineStore('sponsor', {
  name: 'pays',
  description: 'a beneficiary the sponsor pays for (the same record as paidby, listed by sponsor)',
  key: ['pays', keyPart.address('sponsor'), keyPart.address('beneficiary')],
  value: SponsorshipSchema,
});

export const SPONSOR_TARGET = 'chain:system.sponsor';
