import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { NodeServices, ReadContext } from '../../kernel/sdk.js';
import { makeChain, signTransfer, walletOnShard, type Fixture } from '../../test/helpers/chain-fixture.js';
import { servedBundle, shardSigners, shardZeroSigner, twoShardGenesis } from '../../test/helpers/xshard-fixture.js';
import { heldSupply, mintedAndBurnedBy } from '../../test/helpers/supply-model.js';
import { xshardPlugin } from './index.js';
import { ACK_TX, COMMIT_TX, RELAY_SENDER, judgeAck, judgeCommit, readTotals } from './rules.js';
import { lockKey, locks, receiptKey, receipts, type Lock } from './store.js';

/*
 * decisions.md §76's argument, tried: two real shard chains (0 and 1 of 2, in memory), locks both
 * ways, and a relayer that delivers commits and acks in a seeded random order, with duplicates and
 * bundles kept from earlier heights (a pre-deadline proof delivered after the deadline). Whatever
 * the order: a lock is never both credited at its destination and refunded at its source; a
 * refund comes only on a proven abort; once nothing is locked, Σ sent = Σ received; and every
 * block keeps each shard's supply (held = before + minted − burned − fees burned).
 */

const COIN = 1_000_000n;
const S1 = shardSigners(1, [10, 10, 10, 10]);
const S0 = [shardZeroSigner()];
const alice = walletOnShard(0, 2);
const carol = walletOnShard(1, 2);

interface Shard {
  readonly id: number;
  readonly f: Fixture;
  readonly services: { query?: NodeServices['query'] };
  readonly set: typeof S1;
  held: bigint;
}

async function shardChain(id: number): Promise<Shard> {
  const services: Shard['services'] = {};
  const genesis = twoShardGenesis(S1, [{ address: alice.address, balance: 100n * COIN }, { address: carol.address, balance: 100n * COIN }], { relay_timeout_blocks: '3' });
  const f = await makeChain({ plugins: [xshardPlugin], shard: { id, count: 2 }, services, genesis });
  const s: Shard = { id, f, services, set: id === 0 ? S0 : S1, held: 0n };
  s.held = (await heldSupply(f.chain.queries.state)).total;
  return s;
}

/** One block, and the supply check of decisions.md's "supply is conserved to the ucoin" per shard. */
async function block(s: Shard): Promise<void> {
  const b = await s.f.block();
  const { minted, burned } = mintedAndBurnedBy(await s.f.chain.queries.getBlockEvents(b.header.height));
  const now = (await heldSupply(s.f.chain.queries.state)).total;
  assert.equal(now, s.held + minted - burned - b.fees_burned, `shard ${s.id} supply at height ${b.header.height}`);
  s.held = now;
}

const judge = <T>(s: Shard, fn: (ctx: ReadContext) => Promise<T>): Promise<T> => s.services.query!.run('xshard', fn);

/** Admitted (all checks at committed state) or refused; either way nothing is assumed. */
async function deliver(s: Shard, type: string, bundle: Record<string, unknown>): Promise<void> {
  try {
    await judge(s, async (ctx): Promise<unknown> => (type === COMMIT_TX ? judgeCommit(ctx, bundle) : judgeAck(ctx, bundle)));
  } catch {
    return;
  }
  try {
    await s.f.chain.admitSystem(type, RELAY_SENDER, RELAY_SENDER, 0n, bundle, 0);
  } catch {
    // the same bundle is already pending: the pool refuses the duplicate
  }
}

test('commits, aborts and acks in any order with duplicates and late bundles: never a credit and a refund for one lock; Σ sent = Σ received once nothing is locked', async () => {
  const outcomes = new Set<string>();
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.nat(2), fc.nat(5), fc.nat(3)), { minLength: 6, maxLength: 24 }), async (steps) => {
      const [a, b] = [await shardChain(0), await shardChain(1)];
      const shards = [a, b];
      const other = (s: Shard) => (s === a ? b : a);
      // Two locks each way.
      const ids: Array<{ source: Shard; id: string }> = [];
      for (const [s, w, to] of [[a, alice, carol], [b, carol, alice]] as const) {
        for (let k = 1; k <= 2; k++) {
          const ans = await s.f.chain.admit(signTransfer(w, { to: to.address, value: 1_000 * k, nonce: k }), 0);
          ids.push({ source: s, id: ans.tx_hash });
        }
        await block(s);
      }
      await block(a);
      await block(b);
      // Bundles kept from earlier heights: delivered later, they are the late pre-deadline proofs.
      const kept: Array<{ to: Shard; type: string; bundle: Record<string, unknown> }> = [];
      const step = async ([what, pick, extra]: [number, number, number]) => {
        const { source, id } = ids[pick % ids.length]!;
        const dest = other(source);
        if (what === 0) {
          const lock = await servedBundle(source.f, 'lock', lockKey(id), source.set);
          kept.push({ to: dest, type: COMMIT_TX, bundle: lock });
          await deliver(dest, COMMIT_TX, lock);
        } else if (what === 1) {
          const r = await servedBundle(dest.f, 'receipt', receiptKey(source.id, id), dest.set);
          if (r.receipt !== null) {
            kept.push({ to: source, type: ACK_TX, bundle: r });
            await deliver(source, ACK_TX, r);
          }
        } else if (kept.length > 0) {
          const late = kept[(pick + extra) % kept.length]!;
          await deliver(late.to, late.type, late.bundle);
        }
        for (let i = 0; i <= extra % 2; i++) for (const s of shards) await block(s);
      };
      for (const s of steps) await step(s);
      // Drain: an honest relayer until every lock is settled (past the deadline, commits abort).
      for (let round = 0; round < 6; round++) {
        for (const { source, id } of ids) {
          const dest = other(source);
          await deliver(dest, COMMIT_TX, await servedBundle(source.f, 'lock', lockKey(id), source.set));
        }
        for (const s of shards) await block(s);
        for (const s of shards) await block(s);
        for (const { source, id } of ids) {
          const dest = other(source);
          const r = await servedBundle(dest.f, 'receipt', receiptKey(source.id, id), dest.set);
          if (r.receipt !== null) await deliver(source, ACK_TX, r);
        }
        for (const s of shards) await block(s);
      }
      let sent = 0n;
      let received = 0n;
      for (const { source, id } of ids) {
        const dest = other(source);
        const lock = (await locks.get(source.f.pluginState('xshard'), id)) as Lock;
        const receipt = await receipts.get(dest.f.pluginState('xshard'), source.id, id);
        assert.notEqual(lock.status, 'locked', `lock ${id} settled after the drain`);
        assert.ok(receipt, `lock ${id} has its receipt`);
        // Exactly one outcome: a refund only on the abort, a commit only on the committed receipt.
        assert.equal(lock.status === 'refunded', receipt.outcome === 'aborted', `lock ${id}: ${lock.status} at the source, ${receipt.outcome} at the destination`);
        assert.equal(receipt.outcome === 'committed', receipt.proof_height < lock.deadline_height);
        outcomes.add(receipt.outcome);
      }
      for (const s of shards) {
        const t = await readTotals({ store: s.f.pluginState('xshard') });
        assert.equal(t.locked, 0n);
        sent += t.sent;
        received += t.received;
      }
      assert.equal(sent, received, 'with nothing locked, Σ sent = Σ received');
      // Balances: each sender lost exactly its fees and what its committed locks sent, and gained what the other's committed locks sent it.
      const balance = async (s: Shard, w: typeof alice) => (await s.f.account(w.address)).balance;
      const fees = async (s: Shard) => {
        let total = 0n;
        for (const { source, id } of ids) if (source === s) total += (await s.f.chain.queries.getTx(id))!.receipt.fee;
        return total;
      };
      const committedFrom = async (s: Shard) => {
        let v = 0n;
        for (const { source, id } of ids) if (source === s) { const l = (await locks.get(s.f.pluginState('xshard'), id))!; if (l.status === 'committed') v += BigInt(l.value); }
        return v;
      };
      assert.equal(await balance(a, alice), 100n * COIN - (await fees(a)) - (await committedFrom(a)) + (await committedFrom(b)));
      assert.equal(await balance(b, carol), 100n * COIN - (await fees(b)) - (await committedFrom(b)) + (await committedFrom(a)));
    }),
    { seed: 3817, numRuns: 4, endOnFailure: true },
  );
  assert.deepEqual([...outcomes].sort(), ['aborted', 'committed'], 'the runs reached both outcomes');
});
