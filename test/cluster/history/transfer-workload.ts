import { signTransfer, type Wallet } from '../../helpers/chain-fixture.js';
import type { BalanceInput, BalanceOutput } from './balance-model.js';
import { monotonicMs, type Operation } from './operation.js';
import type { CommittedTransfer, SentTransfer } from './transfer-check.js';
import { txIdentity } from '../../../kernel/tx/hash.js';

/** A client of the workload: its wallet and the one node it talks to. */
export interface WorkloadClient {
  readonly name: string;
  readonly wallet: Wallet;
  /** Index of the node it sends to and reads from. */
  readonly node: number;
}

/** A transfer as recorded: what the checkers need, and when the client sent it and heard back. */
export interface RecordedTransfer extends SentTransfer {
  readonly node: number;
  readonly calledAt: number;
  readonly returnedAt: number;
}

export interface RecordedRead extends Operation<BalanceInput, BalanceOutput> {
  readonly node: number;
}

const REQUEST_TIMEOUT_MS = 4_000;

async function call(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return undefined; // no answer: a paused, killed or unreachable node
  }
}

/**
 * Clients that keep writing transfers to each other and reading their own balances while faults
 * are injected, recording every call with its times and answer. Each client talks to one node, so
 * its reads and confirmations come from one replica's sequence of committed states; `complete`
 * asks the healed chain what became of every transfer.
 */
export class TransferWorkload {
  readonly transfers: RecordedTransfer[] = [];
  readonly reads: RecordedRead[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly nextNonce = new Map<string, number>();

  constructor(
    private readonly clients: readonly WorkloadClient[],
    private readonly urlOf: (node: number) => string,
    private readonly rand: () => number,
    private readonly o: { readonly maxAmount: number; readonly confirmWithinMs: number; readonly pauseMs: number },
  ) {}

  start(): void {
    this.running = true;
    this.loops = this.clients.map((c) => this.loop(c));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(c: WorkloadClient): Promise<void> {
    while (this.running) {
      if (this.rand() < 0.6) await this.transfer(c);
      else await this.read(c);
      await new Promise((r) => setTimeout(r, Math.floor(this.rand() * this.o.pauseMs)));
    }
  }

  private async nonceFor(c: WorkloadClient): Promise<number | undefined> {
    const known = this.nextNonce.get(c.name);
    if (known !== undefined) return known;
    const account = await call(`${this.urlOf(c.node)}/api/v1/accounts/${c.wallet.address}`);
    if (account?.status !== 200) return undefined;
    return Number(account.body.next_nonce);
  }

  private async transfer(c: WorkloadClient): Promise<void> {
    const others = this.clients.filter((o) => o !== c);
    const to = others[Math.floor(this.rand() * others.length)]!.wallet.address;
    const amount = 1 + Math.floor(this.rand() * this.o.maxAmount);
    const nonce = await this.nonceFor(c);
    if (nonce === undefined) return;
    const url = this.urlOf(c.node);
    const calledAt = monotonicMs();
    const base = { client: c.name, from: c.wallet.address, to, amount: BigInt(amount), node: c.node, calledAt };
    const body = signTransfer(c.wallet, { to, value: amount, nonce });
    // The id is the hash of the body's canonical text (decisions.md §12): known before an answer, which may never come.
    const hash = txIdentity(body).hash;
    const sent = await call(`${url}/api/v1/transactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (sent && sent.status >= 400 && sent.status < 500) {
      // Refused at admission: never in a mempool. The nonce may be the reason, so ask again next time.
      this.nextNonce.delete(c.name);
      this.transfers.push({ ...base, id: hash, outcome: 'refused', returnedAt: monotonicMs() });
      return;
    }
    if (sent?.status === 200 && sent.body.tx_hash !== hash) throw new Error(`the node answered id ${String(sent.body.tx_hash)} for a transfer whose id is ${hash}`);
    this.nextNonce.set(c.name, nonce + 1);
    const deadline = monotonicMs() + this.o.confirmWithinMs;
    while (monotonicMs() < deadline) {
      const r = await call(`${url}/api/v1/transactions/${hash}`);
      const status = r?.status === 200 ? r.body.status : undefined;
      if (status === 'confirmed' || status === 'failed') {
        this.transfers.push({ ...base, id: hash, outcome: status, returnedAt: monotonicMs() });
        return;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    // Not confirmed in time: it may still commit, or be dropped; the next nonce is asked afresh.
    this.nextNonce.delete(c.name);
    this.transfers.push({ ...base, id: hash, outcome: 'unknown', returnedAt: Infinity });
  }

  private async read(c: WorkloadClient): Promise<void> {
    const calledAt = monotonicMs();
    const r = await call(`${this.urlOf(c.node)}/api/v1/accounts/${c.wallet.address}`);
    const input: BalanceInput = { kind: 'read', account: c.wallet.address };
    if (r?.status === 200) this.reads.push({ client: c.name, node: c.node, input, output: { kind: 'read', balance: BigInt(r.body.balance as number) }, calledAt, returnedAt: monotonicMs() });
    // A read with no answer constrains nothing: it is not recorded.
  }

  /** What the healed chain (read at `url`) holds of every transfer that has an id. */
  async complete(url: string): Promise<CommittedTransfer[]> {
    const committed: CommittedTransfer[] = [];
    for (const t of this.transfers) {
      if (t.outcome === 'refused') continue;
      const r = await call(`${url}/api/v1/transactions/${t.id}`);
      if (r?.status !== 200 || (r.body.status !== 'confirmed' && r.body.status !== 'failed')) continue;
      const fee = BigInt(r.body.fee as number) + BigInt((r.body.unused_gas_fee as number | undefined) ?? 0);
      committed.push({ id: t.id, height: r.body.block as number, fee, ...(r.body.status === 'failed' ? { failed: true } : {}) });
    }
    return committed;
  }

  /**
   * The per-replica history of each client's own balance: its reads, its own transfers as the
   * node answered them, and every transfer credited to it (made by other clients through other
   * nodes, so it may take effect on this replica at any time after it was sent). Parts are
   * `node/account`: a replica's committed states form one sequence, which its reads must follow;
   * two replicas at different heights need not agree at one instant (a follower lags).
   */
  replicaHistories(committed: readonly CommittedTransfer[]): Operation<BalanceInput, BalanceOutput>[] {
    const byId = new Map(committed.map((c) => [c.id, c]));
    const ops: Operation<BalanceInput, BalanceOutput>[] = [];
    for (const c of this.clients) {
      const account = `${c.node}/${c.wallet.address}`;
      for (const r of this.reads.filter((x) => x.client === c.name)) ops.push({ ...r, input: { kind: 'read', account } });
      for (const t of this.transfers) {
        if (t.outcome === 'refused') continue;
        const applied = byId.get(t.id);
        if (t.from === c.wallet.address) {
          const delta = applied === undefined ? 0n : applied.failed ? -applied.fee : -(t.amount + applied.fee);
          ops.push({ client: t.client, input: { kind: 'transfer', account, delta }, output: { kind: 'transfer', committed: applied !== undefined }, calledAt: t.calledAt, returnedAt: t.client === c.name && t.node === c.node ? t.returnedAt : Infinity });
        } else if (t.to === c.wallet.address && applied !== undefined && !applied.failed) {
          ops.push({ client: t.client, input: { kind: 'transfer', account, delta: t.amount }, output: { kind: 'transfer', committed: true }, calledAt: t.calledAt, returnedAt: Infinity });
        }
      }
    }
    return ops;
  }
}
