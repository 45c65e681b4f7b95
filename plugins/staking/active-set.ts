import { jsonRecord, type ReadonlyStore, type ValidatorUpdate, type WriteContext } from '../../kernel/sdk.js';
import { allNodes, readStake } from './store.js';

const vsetCodec = jsonRecord<{ public_key: string; power: bigint }>();

/**
 * The active set re-derived from chain state (part 1, Consensus 7): a `.node` with its consensus
 * key on chain, self-stake at least `min_stake`, not jailed. Voting power is the self-stake.
 * Returns the updates that turn the kernel's current set (`vset`) into it, in address order.
 */
export async function activeSetUpdates(ctx: WriteContext, vset: ReadonlyStore): Promise<ValidatorUpdate[]> {
  const min = await ctx.params.get('min_stake');
  const wanted = new Map<string, { public_key: string; power: bigint }>();
  for (const node of await allNodes(ctx.store)) {
    const stake = await readStake(ctx.store, node.address);
    if (node.consensus_public_key === '' || !stake || stake.amount < min || node.jailed_until > ctx.block.height) continue;
    wanted.set(node.address, { public_key: node.consensus_public_key, power: stake.amount });
  }
  const current = new Map<string, { public_key: string; power: bigint }>();
  for (const [address, raw] of await vset.scan('')) current.set(address, vsetCodec.decode(raw));
  const updates: ValidatorUpdate[] = [];
  // Only nodes staking keeps records of: a validator it never recorded (the plugin switched on
  // after genesis, whose initGenesis never ran) is not removed because staking does not know it.
  const managed = new Set((await allNodes(ctx.store)).map((n) => n.address));
  const addresses = [...new Set([...wanted.keys(), ...current.keys()])].filter((a) => managed.has(a)).sort();
  for (const address of addresses) {
    const want = wanted.get(address);
    const have = current.get(address);
    if (!want) {
      if (have && have.power > 0n) updates.push({ address, public_key: have.public_key, power: 0n });
    } else if (!have || have.power !== want.power || have.public_key !== want.public_key) {
      updates.push({ address, public_key: want.public_key, power: want.power });
    }
  }
  return updates;
}
