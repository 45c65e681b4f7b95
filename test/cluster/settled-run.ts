import { getJson, until } from '../helpers/node-process.js';
import type { BlockView } from './history/chain-agreement.js';
import type { CommittedTransfer } from './history/transfer-check.js';
import type { TransferWorkload, WorkloadClient } from './history/transfer-workload.js';
import type { ValidatorHosts } from './validator-hosts.js';

/**
 * What a healed run ended with, read once it has settled: every running validator at one height
 * (a few blocks after the workload stopped, so transfers still in flight have had their chance),
 * the transfers the chain holds and the clients' balances (read twice: a transfer committed between
 * the two reads would mix heights, so they are read until they agree), and every
 * validator's blocks up to that height.
 */
export async function settledRun(v: ValidatorHosts, workload: TransferWorkload, clients: readonly WorkloadClient[], running: readonly number[] = v.nodes.map((_, i) => i).filter((i) => v.nodes[i]!.proc)): Promise<{ committed: CommittedTransfer[]; final: Map<string, bigint>; blocks: Map<string, BlockView[]>; height: number }> {
  const target = (await v.maxHeight(running)) + 3;
  await v.waitHeight(running, target, 90_000);
  const url = v.nodes[running[0]!]!.url;
  const read = async (): Promise<{ committed: CommittedTransfer[]; final: Map<string, bigint>; height: number }> => {
    const height = (await getJson(`${url}/health`)).body.height as number;
    const final = new Map<string, bigint>();
    for (const c of clients) final.set(c.wallet.address, BigInt((await getJson(`${url}/api/v1/accounts/${c.wallet.address}`)).body.balance as number));
    const committed = await workload.complete(url);
    return { committed, final, height };
  };
  // Empty blocks keep coming; what matters is that no transfer committed between the reads.
  const same = (a: Awaited<ReturnType<typeof read>>, b: Awaited<ReturnType<typeof read>>): boolean =>
    a.committed.map((c) => c.id).join() === b.committed.map((c) => c.id).join() && [...a.final].every(([k, x]) => b.final.get(k) === x);
  const settled = await until('balances and transfers that do not change while the run is read', async () => {
    const a = await read();
    const b = await read();
    return same(a, b) ? b : undefined;
  }, 60_000);
  return { ...settled, blocks: await v.blocks(running, target), height: target };
}
