import { CROSS_SHARD_TARGET, definePlugin, eventUcoin, isChainError, lightClient, type NodeServices } from '../../kernel/sdk.js';
import { XSHARD_STORES, clients, locks } from './store.js';
import { XSHARD_EVENTS, xshardReceipt, xshardSettled } from './events.js';
import { XSHARD_PARAMS } from './params.js';
import { XSHARD_ROUTES, serveXshardRoutes } from './routes.js';
import { ACK_TX, COMMIT_TX, HEADERS_TX, RELAY_GAS, applyAck, applyCommit, applyHeaders, crossShardTransferProblem, judgeAck, judgeCommit, judgeHeaders, lockTransfer, readTotals } from './rules.js';
import { clientValidators } from './bundle.js';
import { crossShardOfTx, totalsView } from './views.js';

const TYPES = [COMMIT_TX, ACK_TX, HEADERS_TX] as const;

/**
 * Cross-shard transfers that cannot be spent twice (decisions.md §72–§77): a transfer to another
 * shard's address is locked at its source; the destination writes one receipt for it on a bundle
 * certified by more than 2/3 of the source's trusted validator power, committed (and credited)
 * before the deadline, else aborted; the source settles the lock only on a proven receipt,
 * refunding only on a proven abort. Relay writes are unsigned system transactions, checked again
 * in the block; the light client is the kernel's.
 */
export const xshardPlugin = definePlugin<Record<string, never>, NodeServices>({
  name: 'xshard',
  kind: 'state',
  description: 'cross-shard transfers: locks at the source, one proven receipt at the destination, settlement on a proven receipt; clients of the other shards',
  stores: [...XSHARD_STORES],
  events: [...XSHARD_EVENTS],
  params: [...XSHARD_PARAMS],
  routes: XSHARD_ROUTES,
  systemTransactions: [...TYPES],
  systemTransactionGas: RELAY_GAS,
  crossShardTransfers: {
    description: 'a transfer to another shard locks its value until a proven receipt settles it (decisions.md §74)',
    admit: crossShardTransferProblem,
    answer: (tx, shards) => ({ dest_shard: shards.shardOf(tx.to) }),
    view: async (ctx, hash) => {
      const lock = await locks.get(ctx.store, hash);
      return lock === undefined ? undefined : crossShardOfTx(lock);
    },
    totals: async (ctx) => totalsView(await readTotals(ctx)),
  },
  // Locked value waits in the lock records; a committed lock's value leaves this shard (burned
  // here) and a committed receipt's arrives (minted there), so each shard's supply holds alone
  // and, across shards, what one burns another mints (decisions.md §76's totals).
  supply: {
    holdings: [
      {
        name: 'locked',
        description: 'value of the locks now locked',
        sum: async (store) => (await locks.scan(store)).reduce((sum, e) => (e.value.status === 'locked' ? sum + BigInt(e.value.value) : sum), 0n),
      },
    ],
    minted: (e) => (e.type === xshardReceipt.type && e.data.outcome === 'committed' ? eventUcoin(e.data.value) : 0n),
    burned: (e) => (e.type === xshardSettled.type && e.data.status === 'committed' ? eventUcoin(e.data.value) : 0n),
  },
  register(api) {
    // §71–§72: each other shard's client starts with that shard's genesis validators (power = stake).
    api.hooks.initGenesis.tapPromise(api.name, async (ctx) => {
      const n = ctx.networkGenesis.n_shards ?? 1;
      for (let t = 0; t < n; t++) {
        if (t === ctx.shard.id) continue;
        const set = lightClient.sortValidators(ctx.networkGenesis.validators.filter((v) => v.shard === t).map((v) => ({ address: v.address, public_key: v.public_key, power: BigInt(v.stake) })));
        clients.set(ctx.store, t, { shard: t, chain_id: ctx.networkGenesis.chain_id, validators: clientValidators(set), validators_hash: lightClient.validatorsHash(set), trusted_height: 0 });
      }
    });
    api.hooks.checkTx.tapPromise(api.name, async (ctx, tx) => {
      if (tx.origin !== 'system' || !(TYPES as readonly string[]).includes(tx.target)) return undefined;
      try {
        if (tx.target === COMMIT_TX) await judgeCommit(ctx, tx.body);
        else if (tx.target === ACK_TX) await judgeAck(ctx, tx.body);
        else await judgeHeaders(ctx, tx.body);
        return undefined;
      } catch (err) {
        if (isChainError(err)) return err;
        throw err;
      }
    });
    api.hooks.executeTx.for(CROSS_SHARD_TARGET).tapPromise(api.name, async (ctx) => {
      await lockTransfer(ctx);
      return undefined;
    });
    api.hooks.executeTx.for(COMMIT_TX).tapPromise(api.name, async (ctx, tx) => {
      await applyCommit(ctx, tx.body);
      return undefined;
    });
    api.hooks.executeTx.for(ACK_TX).tapPromise(api.name, async (ctx, tx) => {
      await applyAck(ctx, tx.body);
      return undefined;
    });
    api.hooks.executeTx.for(HEADERS_TX).tapPromise(api.name, async (ctx, tx) => {
      await applyHeaders(ctx, tx.body);
      return undefined;
    });
    api.hooks.routes.tap(api.name, (routes) => serveXshardRoutes(routes, api.services, api.name));
  },
});
