import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeChain, wallet } from './helpers/chain-fixture.js';
import { definePlugin, type PluginDefinition, type SupplyDeclaration } from '../kernel/sdk.js';
import { heldCoins, mintedAndBurned, type SupplyDeclarer } from '../kernel/state/supply.js';
import { PLUGIN_CATALOGUE } from '../plugins/index.js';

/*
 * Every supply check (`chain audit`, the history checker of the fault scenarios, the tests' supply
 * model) sums balances and the holdings plugins declare (`supply`, kernel/state/supply.ts). A
 * plugin that moves coins where the check does not look fails here: at run time (a plugin that
 * takes coins into its own records breaks conservation until it declares them), and in the
 * source (a shipped plugin that debits or credits an account outside a transfer declares a
 * supply).
 */

const alice = wallet(191);
const KEPT = 1_234n;

/** A plugin that takes `KEPT` ucoin from alice into a record of its own at height 2 and gives them back at height 4. */
function keeper(supply?: SupplyDeclaration): PluginDefinition<unknown, unknown> {
  return definePlugin({
    name: 'keeper',
    kind: 'state',
    description: 'test plugin: keeps coins in its own store',
    ...(supply ? { supply } : {}),
    register(api) {
      api.hooks.beginBlock.tapPromise(api.name, async (ctx) => {
        if (ctx.block.height === 2) {
          await ctx.accounts.debit(alice.address, KEPT);
          ctx.store.set('kept', new TextEncoder().encode(String(KEPT)));
        } else if (ctx.block.height === 4) {
          await ctx.accounts.credit(alice.address, KEPT);
          ctx.store.delete('kept');
        }
      });
    },
  }) as PluginDefinition<unknown, unknown>;
}

const KEPT_HOLDING: SupplyDeclaration = {
  holdings: [{ name: 'kept', description: 'coins kept', sum: async (store) => BigInt(new TextDecoder().decode((await store.get('kept')) ?? new TextEncoder().encode('0'))) }],
};

/** Per block: held after = held before + minted − burned − fees burned; the first height where not, or null. */
async function firstImbalance(plugin: PluginDefinition<unknown, unknown>, blocks: number): Promise<{ height: number; missing: bigint } | null> {
  const f = await makeChain({ plugins: [plugin], accounts: [{ address: alice.address, balance: 1_000_000n }] });
  const declarers: SupplyDeclarer[] = [plugin];
  let held = (await heldCoins(f.chain.queries.state, declarers)).total;
  for (let h = 1; h <= blocks; h++) {
    const b = await f.block();
    const { minted, burned } = mintedAndBurned(await f.chain.queries.getBlockEvents(b.header.height), declarers);
    const now = (await heldCoins(f.chain.queries.state, declarers)).total;
    const want = held + minted - burned - b.fees_burned;
    if (now !== want) return { height: b.header.height, missing: want - now };
    held = now;
  }
  return null;
}

test('a plugin that keeps coins in its own store without declaring them breaks the supply check at that height; declared, the supply holds', async () => {
  assert.deepEqual(await firstImbalance(keeper(), 5), { height: 2, missing: KEPT });
  assert.equal(await firstImbalance(keeper(KEPT_HOLDING), 5), null);
});

test('a plugin that credits from nothing breaks the supply check unless an event of its own declares the mint', async () => {
  const minter = (supply?: SupplyDeclaration): PluginDefinition<unknown, unknown> =>
    definePlugin({
      name: 'minter',
      kind: 'state',
      description: 'test plugin: creates coins',
      events: [{ type: 'minted_here', description: 'coins created', fields: ['amount'] }],
      ...(supply ? { supply } : {}),
      register(api) {
        api.hooks.beginBlock.tapPromise(api.name, async (ctx) => {
          if (ctx.block.height !== 3) return;
          await ctx.accounts.credit(alice.address, 9n);
          ctx.emit({ type: 'minted_here', data: { amount: 9n } });
        });
      },
    }) as PluginDefinition<unknown, unknown>;
  assert.deepEqual(await firstImbalance(minter(), 4), { height: 3, missing: -9n });
  assert.equal(await firstImbalance(minter({ minted: (e) => (e.type === 'minted_here' ? BigInt(e.data.amount as bigint) : 0n) }), 4), null);
});

/** Every non-test TypeScript file under a plugin's folder. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

test('every shipped plugin that debits or credits an account outside a transfer declares where those coins go or come from', () => {
  const root = 'plugins';
  const undeclared: string[] = [];
  for (const [name, def] of PLUGIN_CATALOGUE) {
    const dir = join(root, name);
    const moves = sources(dir).filter((file) => /\.accounts\.(debit|credit)\(/.test(readFileSync(file, 'utf8')));
    const declared = (def.supply?.holdings?.length ?? 0) > 0 || def.supply?.minted !== undefined || def.supply?.burned !== undefined;
    if (moves.length > 0 && !declared) undeclared.push(`${name}: ${moves.map((f) => f.slice(root.length + 1)).join(', ')}`);
  }
  assert.deepEqual(undeclared, [], 'plugins that move coins in or out of accounts with no `supply` declaration (kernel/state/supply.ts)');
  // The check reads something: the plugins known to hold or create coins are found declaring.
  assert.deepEqual([...PLUGIN_CATALOGUE.values()].filter((p) => p.supply).map((p) => p.name).sort(), ['faucet', 'ibc', 'sentinel', 'staking', 'xshard']);
});
