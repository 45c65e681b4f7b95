import { balanceModel } from './balance-model.js';
import { checkSameChain, type BlockView } from './chain-agreement.js';
import type { CheckFailure } from './check-failure.js';
import { checkLinearizable } from './linearizability.js';
import { describeOperation } from './operation.js';
import { checkBalances, checkTransfersApplied, type CommittedTransfer } from './transfer-check.js';
import type { TransferWorkload } from './transfer-workload.js';

/**
 * Every check of a healed run over what the workload recorded: no confirmed transfer lost or
 * applied twice, balances explained by the committed transfers and their fees, every replica's
 * reads linearizable, one chain on every validator. Returns every failure (empty: the run passed).
 */
export function checkHistory(run: {
  readonly workload: TransferWorkload;
  readonly committed: readonly CommittedTransfer[];
  /** Each client's balance when the workload started, and after healing (read at one height). */
  readonly initial: ReadonlyMap<string, bigint>;
  readonly final: ReadonlyMap<string, bigint>;
  /** Which nodes the clients read from (the parts of the replica histories). */
  readonly nodes: readonly number[];
  readonly blocks: ReadonlyMap<string, readonly BlockView[]>;
}): CheckFailure[] {
  const { workload, committed } = run;
  const failures = [...checkTransfersApplied(workload.transfers, committed), ...checkBalances(run.initial, workload.transfers, committed, run.final), ...checkSameChain(run.blocks)];
  const perReplica = new Map<string, bigint>();
  for (const node of run.nodes) for (const [account, balance] of run.initial) perReplica.set(`${node}/${account}`, balance);
  const lin = checkLinearizable(balanceModel(perReplica), workload.replicaHistories(committed));
  if (!lin.ok) {
    failures.push({
      check: 'reads linearizable per replica and account',
      message: `${lin.part}: no order of the operations explains ${describeOperation(lin.failure.culprit)}`,
      window: [...lin.failure.window.map((o) => describeOperation(o)), `longest order the model accepts (${lin.failure.longestPrefix.length} operations) ends with:`, ...lin.failure.longestPrefix.slice(-5).map((o) => describeOperation(o))],
    });
  }
  return failures;
}
