import type { Logger } from 'pino';
import type { ContractAlertConfig } from './config.js';
import type { EventBus, EventSpec } from './event-bus.js';
import { isObject } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import { upstreamPath } from './upstream-path.js';

/** decisions.md §53's `model` of every contract alert. */
export const CONTRACT_ALERT_MODEL = 'contract-activity-v1';

export const CONTRACT_ALERT_EVENT: EventSpec = {
  type: 'contract_alert',
  description: 'unusual call volume on a contract (call_spike, medium or high), or a contract whose security score is below SENTINEL_LOW_SCORE_THRESHOLD starts being called (low_score_active, medium); at most one per contract per ALERT_COOLDOWN_MS',
  fields: ['address', 'alert', 'severity', 'call_count', 'delta', 'timestamp', 'model', 'security_score'],
};

export type ContractAlertKind = 'call_spike' | 'low_score_active';
export type ContractAlertSeverity = 'medium' | 'high';

export interface ContractAlertClass {
  readonly alert: ContractAlertKind;
  readonly severity: ContractAlertSeverity;
}

/**
 * decisions.md §53's classification of one contract's interval, in its order: a high spike, a
 * medium spike, then a low-score contract that starts being called (calls now, none in the
 * previous interval, `securityScore` below the threshold; unknown scores never count as low).
 * Null: nothing to say.
 */
export function classifyContractActivity(t: Pick<ContractAlertConfig, 'spikeLowThreshold' | 'spikeHighThreshold' | 'lowScoreThreshold'>, callCount: number, previousCount: number, securityScore: number | null): ContractAlertClass | null {
  if (callCount >= t.spikeHighThreshold) return { alert: 'call_spike', severity: 'high' };
  if (callCount >= t.spikeLowThreshold) return { alert: 'call_spike', severity: 'medium' };
  if (callCount > 0 && previousCount === 0 && securityScore !== null && securityScore < t.lowScoreThreshold) return { alert: 'low_score_active', severity: 'medium' };
  return null;
}

/** A contract's address (decisions.md §27: `chain:<10 hex>.app`, or a registered `.app` name). */
function isContractAddress(to: unknown): to is string {
  return typeof to === 'string' && to.startsWith('chain:') && to.endsWith('.app');
}

/** A deployed contract's own address (§27), never a name (§38 refuses 10-hex `.app` labels). */
const OWN_ADDRESS = /^chain:[0-9a-f]{10}\.app$/;

/** Heights whose transactions could not be read yet are retried at the next check, this many at most. */
const MAX_PENDING_HEIGHTS = 10_000;

/**
 * Contract activity alerts (part 1, Gateway background behaviour 2; decisions.md §53). The
 * poller's `new_block` events say which heights were committed; every SENTINEL_CHECK_INTERVAL_MS
 * the transactions of those heights are read (cached like every block read) and counted per
 * `.app` they are addressed to, whatever their status. Dry runs never reach a block and deploys
 * are addressed to chain:system.deploy, so neither counts. Each contract with calls is classified
 * against the previous interval's count; an alert goes out on the event bus (`contract_alert`,
 * to every socket client) unless that contract had one within ALERT_COOLDOWN_MS; a suppressed
 * alert is dropped, not sent later.
 */
export class ContractAlerts {
  /** Heights seen committed since the last check, in order. */
  private pending: number[] = [];
  private previous = new Map<string, number>();
  private readonly lastAlertAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Alerts sent, and alerts a cooldown held back (ai/status). */
  sent = 0;
  suppressed = 0;

  constructor(
    readonly config: ContractAlertConfig,
    private readonly reads: Pick<NodeReads, 'get'>,
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.unsubscribe = this.bus.subscribe((e) => {
      if (e.type !== 'new_block') return;
      const { height, tx_count: txCount } = e.data;
      // An empty block cannot hold a call: no read for it.
      if (typeof height === 'number' && txCount !== 0 && this.pending.length < MAX_PENDING_HEIGHTS) this.pending.push(height);
    });
    this.timer = setInterval(() => void this.check(), this.config.checkIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One check (the timer's; tests call it directly). Checks never overlap; never throws. */
  check(): Promise<void> {
    this.running ??= this.runCheck()
      .catch((err: unknown) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'contract activity check failed'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async runCheck(): Promise<void> {
    const heights = this.pending;
    this.pending = [];
    const counts = new Map<string, number>();
    for (let i = 0; i < heights.length; i++) {
      const ok = await this.countBlock(heights[i]!, counts);
      if (!ok) {
        // The node did not answer: this height and the rest count in the next interval.
        this.pending = [...heights.slice(i), ...this.pending];
        break;
      }
    }
    const previous = this.previous;
    const merged = await this.byContract(counts);
    this.previous = merged;
    const at = this.now();
    for (const [address, callCount] of [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const before = previous.get(address) ?? 0;
      // The score is read only where the class may depend on it or an alert carries it.
      const mayAlert = callCount >= this.config.spikeLowThreshold || before === 0;
      if (!mayAlert) continue;
      const score = await this.securityScore(address);
      const c = classifyContractActivity(this.config, callCount, before, score);
      if (c === null) continue;
      const last = this.lastAlertAt.get(address);
      if (last !== undefined && at - last < this.config.cooldownMs) {
        this.suppressed++;
        continue;
      }
      this.lastAlertAt.set(address, at);
      this.sent++;
      this.bus.emit(CONTRACT_ALERT_EVENT.type, { address, alert: c.alert, severity: c.severity, call_count: callCount, delta: callCount - before, timestamp: at, model: CONTRACT_ALERT_MODEL, security_score: score });
    }
    // Cooldowns that ended long ago are forgotten, so the map holds only recently alerted contracts.
    for (const [address, t] of this.lastAlertAt) if (at - t >= this.config.cooldownMs) this.lastAlertAt.delete(address);
  }

  /** Adds one block's contract calls to `counts`; false when the node did not give them. */
  private async countBlock(height: number, counts: Map<string, number>): Promise<boolean> {
    for (let offset = 0; ; ) {
      const page = await this.reads.get(`/api/v1/blocks/${height}/transactions?limit=200&offset=${offset}`).catch(() => null);
      if (page === null || page.status !== 200 || !isObject(page.body) || !Array.isArray(page.body.transactions)) return false;
      const txs = page.body.transactions as unknown[];
      for (const tx of txs) if (isObject(tx) && isContractAddress(tx.to)) counts.set(tx.to, (counts.get(tx.to) ?? 0) + 1);
      if (page.body.has_more !== true || txs.length === 0) return true;
      offset += txs.length;
    }
  }

  /**
   * The counts under each contract's own address: calls addressed to a registered `.app` name
   * (decisions.md §42) are the calls of the contract it names, so they count with the calls
   * addressed to its hex address (one contract, one count, one cooldown). The node resolves the
   * name (its contract record's `address`); a name it cannot resolve now counts as itself.
   */
  private async byContract(counts: ReadonlyMap<string, number>): Promise<Map<string, number>> {
    const merged = new Map<string, number>();
    for (const [to, n] of counts) {
      const address = OWN_ADDRESS.test(to) ? to : ((await this.contractOf(to)) ?? to);
      merged.set(address, (merged.get(address) ?? 0) + n);
    }
    return merged;
  }

  /** The contract address a record read answers for `name`, undefined when it cannot be read. */
  private async contractOf(name: string): Promise<string | undefined> {
    try {
      const r = await this.reads.get(upstreamPath('/api/v1/contracts/:address', { address: name }));
      if (r.status !== 200 || !isObject(r.body)) return undefined;
      const record = isObject(r.body.contract) ? r.body.contract : r.body;
      return typeof record.address === 'string' && OWN_ADDRESS.test(record.address) ? record.address : undefined;
    } catch {
      return undefined;
    }
  }

  /** The contract record's security_score (decisions.md §47), null when it has none or cannot be read. */
  private async securityScore(address: string): Promise<number | null> {
    try {
      const r = await this.reads.get(upstreamPath('/api/v1/contracts/:address', { address }));
      if (r.status !== 200 || !isObject(r.body)) return null;
      const record = isObject(r.body.contract) ? r.body.contract : r.body;
      return typeof record.security_score === 'number' ? record.security_score : null;
    } catch {
      return null;
    }
  }
}
