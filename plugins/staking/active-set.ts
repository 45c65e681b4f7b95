import type { ReadonlyStore, ShardView, ValidatorUpdate, WriteContext } from '../../kernel/sdk.js';
import { nodes, rankedNodes } from './store.js';

export interface ActiveValidator {
  readonly address: string;
  readonly public_key: string;
  readonly power: bigint;
}

/**
 * The active set re-derived from chain state (part 1, Consensus 7; decisions.md §96): of the
 * eligible `.node`s (consensus key on chain, self-stake at least `min_stake`, not jailed at
 * `height`; in a sharded network, owned by this shard, decisions.md §72), the `max_validators` with the highest self-stake, ties by address in ascending byte
 * order. Voting power is the self-stake. An eligible node outside has no power and joins when it
 * ranks in.
 *
 * The rank index holds every node with a key and stake, best first, so this reads the top of it
 * only: it stops at the first stake below `min_stake` (all after are lower) and reads further only
 * past jailed nodes, so a block's cost follows `max_validators`, not how many nodes registered.
 */
export async function activeSet(store: ReadonlyStore, height: number, minStake: bigint, maxValidators: number, shard?: Pick<ShardView, 'owns'>): Promise<ActiveValidator[]> {
  const chosen: ActiveValidator[] = [];
  for (let want = maxValidators; ; want *= 2) {
    const ranked = await rankedNodes(store, want);
    chosen.length = 0;
    let exhausted = ranked.length < want;
    for (const { address, stake } of ranked) {
      if (stake < minStake) {
        exhausted = true;
        break;
      }
      const node = await nodes.get(store, address);
      if (!node || node.consensus_public_key === '' || node.jailed_until > height) continue;
      // Part 1, Consensus 7 in a sharded network: only the `.node`s this shard owns (decisions.md §72).
      if (shard !== undefined && !shard.owns(address)) continue;
      chosen.push({ address, public_key: node.consensus_public_key, power: stake });
      if (chosen.length === maxValidators) return chosen;
    }
    if (exhausted) return chosen;
  }
}

/**
 * The updates that turn the kernel's current set (`ctx.validators.latest()`) into the active set, in address order:
 * additions and power changes for the chosen, power 0 for a member no longer chosen. At most
 * `max_validators` (at most the kernel's bound) stay, so the batch is never refused for size.
 */
export async function activeSetUpdates(ctx: WriteContext): Promise<ValidatorUpdate[]> {
  const wanted = new Map((await activeSet(ctx.store, ctx.block.height, await ctx.params.get('min_stake'), Number(await ctx.params.get('max_validators')), ctx.shard)).map((v) => [v.address, v] as const));
  const current = new Map((await ctx.validators.latest()).map((v) => [v.address, v] as const));
  const updates: ValidatorUpdate[] = [];
  for (const address of [...new Set([...wanted.keys(), ...current.keys()])].sort()) {
    const want = wanted.get(address);
    const have = current.get(address);
    if (!want) {
      // Only nodes staking keeps records of: a validator it never recorded (the plugin switched
      // on after genesis, whose initGenesis never ran) is not removed because staking does not know it.
      if (have && have.power > 0n && (await nodes.get(ctx.store, address))) updates.push({ address, public_key: have.public_key, power: 0n });
    } else if (!have || have.power !== want.power || have.public_key !== want.public_key) {
      updates.push({ address, public_key: want.public_key, power: want.power });
    }
  }
  return updates;
}
