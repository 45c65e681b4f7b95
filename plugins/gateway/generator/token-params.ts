import { badRequest } from '../../../kernel/sdk.js';

/** The kinds `generate` knows (decisions.md §52), each built from one shipped template. */
export const GENERATOR_KINDS = ['token'] as const;
export type GeneratorKind = (typeof GENERATOR_KINDS)[number];

/** The parameters of a generated token: its deploy's `init_args` (total_supply in whole tokens). */
export interface TokenParams {
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly total_supply: bigint;
}

/** The fields a generate request may name besides `kind`. */
export const TOKEN_FIELDS = ['name', 'symbol', 'decimals', 'total_supply'] as const;

const SYMBOL = /^[A-Z0-9]{1,12}$/;
const MAX_DECIMALS = 18;
/** decisions.md §52: total_supply × 10^decimals ≤ 2^64 − 1 (the token's u64 balances). */
const MAX_UNITS = (1n << 64n) - 1n;

/** A JSON integer as parsed losslessly (a number, or a bigint beyond 2^53), else undefined. */
function jsonInteger(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  return undefined;
}

export function generatorKind(v: unknown): GeneratorKind {
  const kinds = GENERATOR_KINDS.join(', ');
  if (v === undefined) throw badRequest(`kind is required; the kinds are: ${kinds}`);
  if (typeof v !== 'string' || !(GENERATOR_KINDS as readonly string[]).includes(v)) throw badRequest(`kind ${JSON.stringify(v)} is not one the generator builds; the kinds are: ${kinds}`);
  return v as GeneratorKind;
}

/**
 * The token's parameters of decisions.md §52, each refused with 400 naming the field and its
 * rule: `name` 1–64 characters, `symbol` 1–12 of A-Z0-9, `decimals` a JSON integer 0–18,
 * `total_supply` a JSON integer from 1 with total_supply × 10^decimals ≤ 2^64 − 1. The same
 * checks hold the fields a model filled from a prompt.
 */
export function tokenParams(f: Readonly<Record<string, unknown>>): TokenParams {
  const { name, symbol, decimals, total_supply: supply } = f;
  if (typeof name !== 'string' || name.length < 1 || name.length > 64) throw badRequest(`name must be a string of 1 to 64 characters, got ${JSON.stringify(name) ?? 'nothing'}`);
  if (typeof symbol !== 'string' || !SYMBOL.test(symbol)) throw badRequest(`symbol must be 1 to 12 characters of A-Z and 0-9, got ${JSON.stringify(symbol) ?? 'nothing'}`);
  const d = jsonInteger(decimals);
  if (d === undefined || d < 0n || d > BigInt(MAX_DECIMALS)) throw badRequest(`decimals must be a JSON integer from 0 to ${MAX_DECIMALS}, got ${show(decimals)}`);
  const total = jsonInteger(supply);
  if (total === undefined || total < 1n) throw badRequest(`total_supply must be a JSON integer from 1 (whole tokens), got ${show(supply)}`);
  if (total * 10n ** d > MAX_UNITS) throw badRequest(`total_supply ${total} × 10^${d} is above 2^64 − 1 (${MAX_UNITS}), the most a token holds in its smallest unit`);
  return { name, symbol, decimals: Number(d), total_supply: total };
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v) ?? String(v);
}

/** `init_args` as a deploy takes them: total_supply a JSON integer (a bigint beyond 2^53, written as an integer). */
export function initArgs(p: TokenParams): Record<string, unknown> {
  const total = p.total_supply <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(p.total_supply) : p.total_supply;
  return { name: p.name, symbol: p.symbol, decimals: p.decimals, total_supply: total };
}
