import { UCOIN_PER_COIN } from '../codec/amount.js';
import type { GenesisDoc, JoinStatement } from './genesis.js';
import { genesisValidatorOf } from './genesis-join.js';
import { shardOf } from '../crypto/fnv.js';

/** decisions.md §14: on a test network each validator's owner gets 1 000 COIN for its own fees. */
export const TEST_NETWORK_OWNER_FUNDS = 1_000n * UCOIN_PER_COIN;

export interface CollectOptions {
  readonly chainId: string;
  readonly genesisTime: number;
  /** A test network (`env` testnet) funds each distinct owner; mainnet funds nobody. */
  readonly testNetwork: boolean;
  /** `--account <address>=<ucoin>`: added to what the address gets otherwise. */
  readonly accounts?: ReadonlyArray<{ readonly address: string; readonly balance: bigint }>;
  readonly params?: Readonly<Record<string, string>>;
  /**
   * decisions.md §71: a sharded network's shard count. Above 1 the document carries `n_shards`
   * and each validator the shard that owns its `.node`; 1 or absent makes §82's document unchanged.
   */
  readonly nShards?: number;
}

function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The genesis of decisions.md §82 from checked join statements: validators sorted by address in
 * UTF-8 byte order and accounts sorted by address, so the order the statements arrive in never
 * changes the document (nor its hash). The one genesis builder: `chain genesis collect`,
 * `chain testnet`, the devnet and the test helpers all make their genesis here.
 */
export function collectGenesis(joins: readonly JoinStatement[], o: CollectOptions): GenesisDoc {
  const balances = new Map<string, bigint>();
  const credit = (address: string, amount: bigint): void => void balances.set(address, (balances.get(address) ?? 0n) + amount);
  if (o.testNetwork) for (const owner of new Set(joins.map((j) => j.owner))) credit(owner, TEST_NETWORK_OWNER_FUNDS);
  for (const a of o.accounts ?? []) credit(a.address, a.balance);
  const params = Object.fromEntries(Object.entries(o.params ?? {}).sort(([a], [b]) => byUtf8(a, b)));
  const n = o.nShards ?? 1;
  const validators = joins.map(genesisValidatorOf).sort((a, b) => byUtf8(a.address, b.address));
  return {
    chain_id: o.chainId,
    ...(n > 1 ? { n_shards: n } : {}),
    genesis_time: o.genesisTime,
    validators: n > 1 ? validators.map((v) => ({ ...v, shard: shardOf(v.address, n) })) : validators,
    accounts: [...balances].sort(([a], [b]) => byUtf8(a, b)).map(([address, balance]) => ({ address, balance: balance.toString(10) })),
    params,
  };
}
