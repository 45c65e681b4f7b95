import assert from 'node:assert/strict';
import { labelledWallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until } from '../helpers/node-process.js';
import { mulberry32, testSeed } from '../helpers/prng.js';
import { reportFailures } from './history/check-failure.js';
import { checkHistory } from './history/check-history.js';
import { TransferWorkload, type WorkloadClient } from './history/transfer-workload.js';
import { settledRun } from './settled-run.js';
import { supplyAtSnapshot } from './supply-at-snapshot.js';
import { checkSupply } from './history/supply-check.js';
import { ValidatorHosts } from './validator-hosts.js';

/** How long a client waits for its transfer to be confirmed before it counts it unknown. */
export const CONFIRM_WITHIN_MS = 6_000;

/**
 * One fault scenario's run: four validators on four hosts, a client per host funded by the faucet
 * and writing transfers and reading its balance from the start, and, after healing, every check
 * of the history (`verify`), failing with the seed and the window that broke a check.
 */
export class FaultRun {
  readonly rand: () => number;
  private constructor(
    readonly seed: number,
    readonly v: ValidatorHosts,
    readonly clients: readonly WorkloadClient[],
    readonly workload: TransferWorkload,
    private readonly initial: ReadonlyMap<string, bigint>,
    rand: () => number,
  ) {
    this.rand = rand;
  }

  /** `TEST_SEED=<n>` in a message, so a failure says how to replay it. */
  get replay(): string {
    return `seed ${this.seed} (replay with TEST_SEED=${this.seed})`;
  }

  /**
   * `emulatedLinks`: the validators talk through links `faults.shape` can delay, jitter and stall
   * (seeded by the run's seed); `env` for every node (a faster block pace); `followers` hosts for
   * full nodes a scenario starts itself.
   */
  static async start(name: string, envOf: (i: number) => NodeJS.ProcessEnv = () => ({}), options: { readonly emulatedLinks?: boolean; readonly env?: NodeJS.ProcessEnv; readonly followers?: number } = {}): Promise<FaultRun> {
    const seed = testSeed(name);
    const rand = mulberry32(seed);
    const v = await ValidatorHosts.start(4, options.env ?? {}, envOf, { ...(options.emulatedLinks ? { emulatedLinks: { seed } } : {}), followers: options.followers ?? 0 });
    try {
      await v.waitHeight([0, 1, 2, 3], 2);
      const clients: WorkloadClient[] = [0, 1, 2, 3].map((i) => ({ name: `client-${i}`, wallet: labelledWallet(`${name}-client-${i}`), node: i }));
      for (const c of clients) {
        const f = await postJson(`${v.nodes[0]!.url}/api/v1/faucet`, { address: c.wallet.address, public_key: c.wallet.publicKeyHex });
        assert.equal(f.status, 200, JSON.stringify(f.body));
      }
      await until('every client funded on every node', async () => {
        for (const n of v.nodes.slice(0, v.validators)) for (const c of clients) if (((await getJson(`${n.url}/api/v1/accounts/${c.wallet.address}`)).body.balance as number) <= 0) return undefined;
        return true;
      }, 60_000);
      const initial = new Map<string, bigint>();
      for (const c of clients) initial.set(c.wallet.address, BigInt((await getJson(`${v.nodes[0]!.url}/api/v1/accounts/${c.wallet.address}`)).body.balance as number));
      const workload = new TransferWorkload(clients, (i) => v.nodes[i]!.url, rand, { maxAmount: 1_000, confirmWithinMs: CONFIRM_WITHIN_MS, pauseMs: 150 });
      workload.start();
      return new FaultRun(seed, v, clients, workload, initial, rand);
    } catch (err) {
      await v.destroy();
      throw err;
    }
  }

  /** The workload stopped, every fault healed, the run settled and every check of the history passed. */
  async verify(diagnostic: (line: string) => void): Promise<void> {
    await this.workload.stop();
    this.v.faults.healAll();
    const run = await settledRun(this.v, this.workload, this.clients);
    const failures = checkHistory({ workload: this.workload, committed: run.committed, initial: this.initial, final: run.final, nodes: this.clients.map((c) => c.node), blocks: run.blocks });
    // Supply to the ucoin at a height past every transfer of the run, over balances and every declared holding.
    const supply = await supplyAtSnapshot(this.v.nodes.find((n) => n.proc)!.url, this.v.genesisFile, run.height);
    failures.push(...checkSupply(supply));
    const outcomes = new Map<string, number>();
    for (const x of this.workload.transfers) outcomes.set(x.outcome, (outcomes.get(x.outcome) ?? 0) + 1);
    diagnostic(`${this.replay}: ${this.workload.transfers.length} transfers (${[...outcomes].map(([k, n]) => `${k} ${n}`).join(', ')}), ${this.workload.reads.length} reads, ${run.committed.length} committed, checked up to height ${run.height}; supply at height ${supply.height}: genesis ${supply.genesis} + minted ${supply.minted} − burned ${supply.burned} = held ${Object.values(supply.held).reduce((a, b) => a + b, 0n)} (${Object.entries(supply.held).map(([k, x]) => `${k} ${x}`).join(', ')})`);
    assert.deepEqual(failures, [], `${reportFailures(this.seed, failures)}\nfaults:\n${this.v.faults.log.join('\n')}`);
    assert.ok((outcomes.get('confirmed') ?? 0) >= 10 && this.workload.reads.length >= 10, `the clients got transfers through and read (${this.workload.transfers.length} sent, ${this.workload.reads.length} reads); ${this.replay}`);
    assert.deepEqual(this.v.logsMatching(/double-sign evidence recorded/), [], this.replay);
  }

  async destroy(): Promise<void> {
    await this.workload.stop();
    await this.v.destroy();
  }
}
