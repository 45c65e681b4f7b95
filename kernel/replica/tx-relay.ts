import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import { TAG_TX, TAG_TX_BATCH, decodeTxBatch, decodeTxRelay, encodeTxBatch, encodeTxRelay, parseRelayedTxs, type RelayedTx } from './envelope.js';

/** A relay message is sent once this much transaction text waits (~24 transfers), whatever the turn. */
const RELAY_BATCH_BYTES = 256 * 1024;

export interface TxRelayDeps {
  readonly chain: Pick<Chain, 'admitFromPeer' | 'prefetchAccounts'>;
  readonly log: Logger;
  broadcast(bytes: Uint8Array): void;
  /** Once the replica stopped, nothing more leaves. */
  stopped(): boolean;
  now(): number;
}

/**
 * Transactions between validators, so every proposer's mempool holds what clients submitted
 * anywhere. Admissions finish in bursts (a verify batch comes back from the pool at once), so
 * everything admitted in one event-loop turn leaves as one message.
 */
export class TxRelay {
  private out: RelayedTx[] = [];
  private bytes = 0;
  private scheduled = false;

  constructor(private readonly d: TxRelayDeps) {}

  /** Queues a transaction for the peers. */
  send(tx: RelayedTx): void {
    this.out.push(tx);
    this.bytes += tx.canonical.length;
    if (this.bytes >= RELAY_BATCH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const txs = this.out;
    if (txs.length === 0 || this.d.stopped()) return;
    this.out = [];
    this.bytes = 0;
    // A lone transaction keeps the single-transaction message.
    const msg = txs.length === 1 ? encodeTxRelay(txs[0]!.origin, txs[0]!.canonical, [TAG_TX]) : encodeTxBatch(txs, [TAG_TX_BATCH]);
    this.d.broadcast(msg);
  }

  /** A peer's `TAG_TX` or `TAG_TX_BATCH` body, handed to admission; false when it is malformed. */
  receive(from: string, tag: typeof TAG_TX | typeof TAG_TX_BATCH, body: Uint8Array): boolean {
    const single = tag === TAG_TX ? decodeTxRelay(body) : null;
    const txs = parseRelayedTxs(tag === TAG_TX ? single && [single] : decodeTxBatch(body));
    if (!txs) return false;
    const now = this.d.now();
    // The batch's accounts in one LevelDB read, begun before the admissions that read them.
    this.d.chain.prefetchAccounts(txs.map((t) => t.body));
    // Admission runs outside the consensus queue: a signature check must not delay votes.
    txs.forEach((t) => {
      void this.d.chain.admitFromPeer(t.origin, t.body, now, t.canonical).catch((err: unknown) => {
        this.d.log.debug({ peer: from, err: err instanceof Error ? err.message : String(err) }, 'relayed transaction not admitted');
      });
    });
    return true;
  }
}
