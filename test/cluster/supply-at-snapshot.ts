import { readFileSync } from 'node:fs';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import type { BlockEvent } from '../../kernel/model/types.js';
import type { StateSnapshot } from '../../kernel/replica/snapshot.js';
import { heldCoins, mintedAndBurned } from '../../kernel/state/supply.js';
import { PLUGIN_CATALOGUE } from '../../plugins/index.js';
import { entriesState } from '../helpers/supply-model.js';
import { getJson, until } from '../helpers/node-process.js';
import type { Holdings } from './history/supply-check.js';

/** Blocks read at once while summing what each minted and burned. */
const PARALLEL_READS = 8;

/**
 * The supply of a running chain as a client can read it, for the checker's supply check
 * (`checkSupply`): the state of a signed snapshot the node serves (`GET /api/v1/state/snapshot`,
 * at a height at least `atLeast`), summed over every balance and every holding the plugins
 * declare (kernel/state/supply.ts); the genesis supply from the genesis document (its accounts and
 * its validators' stakes); and what blocks 1..that height minted and burned: each block's
 * `fees_burned` (fees and `ctx.burn`) and what its events say the plugins created and destroyed
 * (faucet credits, rewards, slashes).
 */
export async function supplyAtSnapshot(url: string, genesisFile: string, atLeast: number): Promise<{ height: number; genesis: bigint; minted: bigint; burned: bigint; held: Holdings }> {
  const snap = await until(`a state snapshot of ${url} at height ${atLeast} or above`, async () => {
    const r = await getJson(`${url}/api/v1/state/snapshot`);
    return r.status === 200 && (r.body.height as number) >= atLeast ? (r.body as unknown as StateSnapshot) : undefined;
  }, 120_000);
  const plugins = [...PLUGIN_CATALOGUE.values()];
  const coins = await heldCoins(entriesState(snap.entries), plugins);
  const doc = JSON.parse(readFileSync(genesisFile, 'utf8')) as GenesisDoc;
  const genesis = [...doc.accounts.map((a) => BigInt(a.balance)), ...doc.validators.map((v) => BigInt(v.stake))].reduce((a, b) => a + b, 0n);
  let minted = 0n;
  let burned = 0n;
  const readBlock = async (h: number): Promise<void> => {
    const [block, events] = await Promise.all([getJson(`${url}/api/v1/blocks/${h}`), getJson(`${url}/api/v1/blocks/${h}/events`)]);
    if (block.status !== 200 || events.status !== 200) throw new Error(`block ${h} of ${url}: ${block.status} ${events.status}`);
    const made = mintedAndBurned(events.body.events as BlockEvent[], plugins);
    minted += made.minted;
    burned += made.burned + BigInt(block.body.fees_burned as number);
  };
  for (let from = 1; from <= snap.height; from += PARALLEL_READS) {
    await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, snap.height - from + 1) }, (_, i) => readBlock(from + i)));
  }
  return { height: snap.height, genesis, minted, burned, held: { balances: coins.balances, ...coins.holdings } };
}
