import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until } from '../helpers/node-process.js';
import { mulberry32, testSeed } from '../helpers/prng.js';
import { ValidatorHosts } from '../cluster/validator-hosts.js';
import { TransferWorkload, type WorkloadClient } from '../cluster/history/transfer-workload.js';
import { checkHistory } from '../cluster/history/check-history.js';
import { reportFailures } from '../cluster/history/check-failure.js';
import { settledRun } from '../cluster/settled-run.js';

/*
 * Four validators on four hosts (network namespaces), clients writing transfers and reading their
 * balances throughout, through the faults of docs/reliability.md that fit the normal suite: a
 * minority cut off (1 of 4: the rest go on), a majority lost (2 and 2: nobody decides, and after
 * healing the chain resumes with no fork), a validator paused past several heights. After healing
 * the history checker reads the whole run. The longer scenarios run by `npm run test:faults`.
 */

const skip = ValidatorHosts.unavailable();

describe('faults between hosts, with a history checked afterwards', { skip: skip ? `skipped: ${skip}` : false }, () => {
  const seed = testSeed('partitions');
  const rand = mulberry32(seed);
  let v: ValidatorHosts;
  let workload: TransferWorkload;
  const clients: WorkloadClient[] = [0, 1, 2, 3].map((i) => ({ name: `client-${i}`, wallet: labelledWallet(`partitions-client-${i}`), node: i }));
  const initial = new Map<string, bigint>();
  const replay = `seed ${seed} (replay with TEST_SEED=${seed})`;

  before(async () => {
    v = await ValidatorHosts.start(4);
    await v.waitHeight([0, 1, 2, 3], 2);
    for (const c of clients) {
      const f = await postJson(`${v.nodes[0]!.url}/api/v1/faucet`, { address: c.wallet.address, public_key: c.wallet.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
    }
    await until('every client funded on every node', async () => {
      for (const n of v.nodes) for (const c of clients) if (((await getJson(`${n.url}/api/v1/accounts/${c.wallet.address}`)).body.balance as number) <= 0) return undefined;
      return true;
    }, 60_000);
    for (const c of clients) initial.set(c.wallet.address, BigInt((await getJson(`${v.nodes[0]!.url}/api/v1/accounts/${c.wallet.address}`)).body.balance as number));
    workload = new TransferWorkload(clients, (i) => v.nodes[i]!.url, rand, { maxAmount: 1_000, confirmWithinMs: 6_000, pauseMs: 150 });
    workload.start();
  });
  after(async () => {
    await workload?.stop();
    await v?.destroy();
  });

  test('a minority cut off (1 of 4): the other three keep committing; healed, it catches up', async () => {
    const from = await v.maxHeight();
    v.faults.isolate(v.nodes[3]!.host);
    await v.waitHeight([0, 1, 2], from + 4);
    const stuck = await v.height(3);
    assert.ok(stuck <= from + 1, `the isolated validator stays behind (at ${stuck}, the others passed ${from + 4}); ${replay}`);
    v.faults.healAll();
    await v.waitHeight([3], from + 5);
  });

  test('a majority lost (2 and 2): no side decides; healed, the chain resumes', async () => {
    const [a, b, c, d] = v.nodes.map((n) => n.host);
    const before = await v.maxHeight();
    v.faults.partition([[a!, b!], [c!, d!]]);
    // A height in flight may still finish; after that, nothing.
    await new Promise((r) => setTimeout(r, 1_500));
    const halted = await v.maxHeight();
    await new Promise((r) => setTimeout(r, 4_000));
    assert.equal(await v.maxHeight(), halted, `no height decided while split 2 and 2 (was ${before}, stopped at ${halted}); ${replay}`);
    v.faults.healAll();
    await v.waitHeight([0, 1, 2, 3], halted + 3, 90_000);
  });

  test('a validator paused past several heights resumes and catches up', async () => {
    const proc = v.nodes[1]!.proc!;
    v.faults.pause(proc, 'validator 1');
    const from = await v.maxHeight([0, 2, 3]);
    await v.waitHeight([0, 2, 3], from + 4);
    v.faults.resume(proc, 'validator 1');
    await v.waitHeight([1], from + 5);
  });

  test('after healing: no confirmed transfer lost or doubled, balances explained, reads linearizable per replica, one chain', async (t) => {
    await workload.stop();
    const run = await settledRun(v, workload, clients);
    const failures = checkHistory({ workload, committed: run.committed, initial, final: run.final, nodes: [0, 1, 2, 3], blocks: run.blocks });
    const outcomes = new Map<string, number>();
    for (const x of workload.transfers) outcomes.set(x.outcome, (outcomes.get(x.outcome) ?? 0) + 1);
    t.diagnostic(`${replay}: ${workload.transfers.length} transfers (${[...outcomes].map(([k, n]) => `${k} ${n}`).join(', ')}), ${workload.reads.length} reads, ${run.committed.length} committed, checked up to height ${run.height}`);
    assert.deepEqual(failures, [], `${reportFailures(seed, failures)}\nfaults:\n${v.faults.log.join('\n')}`);
    assert.ok((outcomes.get('confirmed') ?? 0) >= 10 && workload.reads.length >= 10, `the clients got transfers through and read (${workload.transfers.length} sent, ${workload.reads.length} reads); ${replay}`);
    assert.deepEqual(v.logsMatching(/double-sign evidence recorded/), [], replay);
  });
});
