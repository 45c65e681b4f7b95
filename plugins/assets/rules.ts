import { badRequest, forbidden, notFound, type ChainError, type ReadContext, type ReadonlyStore } from '../../kernel/sdk.js';
import { denominationOf, type Asset } from './ledger.js';
import { PARAMS } from './params.js';
import { ASSET_ID_RE, pools, SYMBOL_RE, UCOIN } from './store.js';
import type { Static } from '@sinclair/typebox';
import type { PoolRecord } from './store.js';

/** Rules several operations share, each refusal with the status of decisions.md §62 and a message naming the rule. */

export type Pool = Static<typeof PoolRecord>;

const RESERVED_SYMBOLS = new Set(['COIN', 'UCOIN']);

/** Why a symbol is not valid (§55), or null. */
export function symbolProblem(symbol: string): string | null {
  if (RESERVED_SYMBOLS.has(symbol)) return `symbol ${symbol} is reserved (COIN and UCOIN name the native coin)`;
  if (symbol.length < 2 || symbol.length > 12) return `symbol ${JSON.stringify(symbol)} must be 2 to 12 characters`;
  if (!SYMBOL_RE.test(symbol)) return `symbol ${JSON.stringify(symbol)} must be A-Z and 0-9 only, a letter first (symbols are never case-folded)`;
  return null;
}

/** Why a name is not valid (§56), or null: 1 to 64 characters (code points), none a control character. */
export function nameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > 64) return `name must be 1 to 64 characters (it has ${length})`;
  // eslint-disable-next-line no-control-regex -- the rule is exactly "no control characters"
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'name may not contain control characters';
  return null;
}

/** 403 naming `dex_paused` when the exchange is paused (§59: new pools, liquidity and swaps). */
export async function pausedProblem(ctx: ReadContext, what: string): Promise<ChainError | undefined> {
  return (await ctx.params.get(PARAMS.paused)) === 1n ? forbidden(`the exchange is paused (dex_paused = 1): ${what} is refused; deposits, withdrawals, removals and transfers stay open`) : undefined;
}

/** An issued asset named in a body (404 for an id no asset has; `ucoin` is not one, 400 where it is not accepted). */
export async function issuedAsset(store: ReadonlyStore, id: string, field: string): Promise<Asset | ChainError> {
  if (id === UCOIN) return badRequest(`${field}: ucoin is the native coin, not an issued asset (a plain transaction moves coins)`);
  const d = ASSET_ID_RE.test(id) ? await denominationOf(store, id) : undefined;
  return d?.record ?? notFound(`${field}: no asset ${id}`);
}

/** An asset the exchange holds: an issued asset or `ucoin` (404 for an unknown one). */
export async function exchangeAsset(store: ReadonlyStore, id: string, field: string): Promise<{ readonly symbol: string; readonly decimals: number } | ChainError> {
  const d = id === UCOIN || ASSET_ID_RE.test(id) ? await denominationOf(store, id) : undefined;
  return d ?? notFound(`${field}: no asset ${id} (an issued asset's id, or ucoin)`);
}

export async function poolNamed(store: ReadonlyStore, id: string): Promise<Pool | ChainError> {
  const pool = /^0x[0-9a-f]{64}$/.test(id) ? await pools.get(store, id) : undefined;
  return pool ?? notFound(`pool_id: no pool ${id}`);
}
