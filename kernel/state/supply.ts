import type { BlockEvent } from '../model/types.js';
import { ACCOUNTS_NAMESPACE, accountsReader } from './accounts.js';
import type { StateSource } from './overlay.js';
import { readonlyStore, type ReadonlyStore } from './prefixed-store.js';

/**
 * One kind of coins a plugin holds outside accounts (staking's stakes, the sentinel's held
 * transfers): coins that left an account by `ctx.accounts.debit` and wait in the plugin's own
 * records. `sum` reads the plugin's own store at one height and answers the ucoin held there.
 */
export interface CoinHolding {
  /** lower_snake_case; the supply check reports it as `<plugin>.<name>`. */
  readonly name: string;
  readonly description: string;
  sum(store: ReadonlyStore): Promise<bigint>;
}

/**
 * Where a plugin keeps coins and how it creates and destroys them beside the kernel's own ways
 * (balances, fees and `ctx.burn` the kernel counts itself): what every supply check sums, so that
 * total supply = genesis + minted − burned holds to the ucoin at every height. A plugin that
 * debits an account into a record of its own, or credits one from nothing, declares it here.
 * `minted` and `burned` are shown only the events the plugin declares, and read their amounts
 * with `eventUcoin` (an event's data is a bigint inside the node and an integer on the wire).
 */
export interface SupplyDeclaration {
  readonly holdings?: readonly CoinHolding[];
  /** The ucoin one of its events says the block created (a faucet credit, a reward). */
  readonly minted?: (event: BlockEvent) => bigint;
  /** The ucoin one of its events says the block destroyed outside `ctx.burn` (a slash's burned part). */
  readonly burned?: (event: BlockEvent) => bigint;
}

/** What the supply readers need of a plugin definition. */
export interface SupplyDeclarer {
  readonly name: string;
  readonly supply?: SupplyDeclaration;
  readonly events?: ReadonlyArray<{ readonly type: string }>;
}

/** Every coin a state holds: the balances of every account, and each plugin's declared holdings by `<plugin>.<name>`. */
export interface HeldCoins {
  readonly balances: bigint;
  readonly holdings: Readonly<Record<string, bigint>>;
  readonly total: bigint;
}

/** An amount in an event's data as a bigint: a bigint, a safe integer, a decimal string or a `{$big}` record. */
export function eventUcoin(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'object' && value !== null && typeof (value as { $big?: unknown }).$big === 'string') return BigInt((value as { $big: string }).$big);
  throw new Error(`an event amount that is no integer: ${String(value)}`);
}

/** The coins `state` holds, over every account and every holding `plugins` declare (plugins with no records there add 0). */
export async function heldCoins(state: StateSource, plugins: Iterable<SupplyDeclarer>): Promise<HeldCoins> {
  const accounts = accountsReader(state);
  let balances = 0n;
  for (const [key] of await state.scan(`${ACCOUNTS_NAMESPACE}/`)) balances += (await accounts.get(key.slice(ACCOUNTS_NAMESPACE.length + 1))).balance;
  const holdings: Record<string, bigint> = {};
  let total = balances;
  for (const p of plugins) {
    for (const h of p.supply?.holdings ?? []) {
      const held = await h.sum(readonlyStore(state, p.name));
      holdings[`${p.name}.${h.name}`] = held;
      total += held;
    }
  }
  return { balances, holdings, total };
}

/** What a block's events say `plugins` created and destroyed beside fees and `ctx.burn`; each plugin reads only the event types it declares. */
export function mintedAndBurned(events: readonly BlockEvent[], plugins: Iterable<SupplyDeclarer>): { minted: bigint; burned: bigint } {
  const byType = new Map<string, SupplyDeclaration>();
  for (const p of plugins) if (p.supply?.minted || p.supply?.burned) for (const e of p.events ?? []) byType.set(e.type, p.supply);
  let minted = 0n;
  let burned = 0n;
  for (const e of events) {
    const s = byType.get(e.type);
    if (!s) continue;
    minted += s.minted?.(e) ?? 0n;
    burned += s.burned?.(e) ?? 0n;
  }
  return { minted, burned };
}
