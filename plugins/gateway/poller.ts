import type { Logger } from 'pino';
import type { EventBus } from './event-bus.js';
import type { GatewayMetrics } from './metrics.js';
import { isObject } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import type { ResponseCache } from './response-cache.js';
import { fetchValidators } from './validators.js';
import type { SetChange } from './block-events.js';

/** What the last poll saw of the node; /health and the `init` event are built from it. */
export interface NodeView {
  readonly reachable: boolean;
  readonly status: string;
  readonly height: number;
  readonly peers: number;
  readonly round: number;
  readonly mempool: number;
  readonly tps: number;
  readonly finality_ms: number;
  readonly validator_count: number;
  readonly total_txs: number;
  /** The node's chain id (its /health), which ch-tx-v4 signatures name (decisions.md §94); null until a poll saw it. */
  readonly chain_id: string | null;
  readonly last_poll_at: number;
  /** Why the last poll failed; null after a good one. */
  readonly error: string | null;
}

const RATE_LIMITED_HINT = ' (the node rate-limits this gateway: list the gateway\'s address in CHAIN_RPC_TRUSTED_IPS on the node)';

const VALIDATOR_UPDATE_EVERY = 10;

/**
 * Polls the node every POLL_NODE_INTERVAL_MS and turns what changed into socket events: `metrics`
 * every poll, `new_block` for every height in order (heights skipped between two polls are
 * fetched, so clients never miss one), `validator_update` every 10 blocks and at the height whose
 * committed state first shows a validator set change a block made. It is also what makes
 * cached height-dependent answers stale. Polls never overlap: the next is scheduled after one ends.
 */
export class NodePoller {
  private view: NodeView | undefined;
  /** The last height announced with new_block; never lowered. */
  private lastHeight: number | undefined;
  private behindLogged = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly reads: NodeReads,
    private readonly cache: ResponseCache,
    private readonly events: EventBus,
    private readonly metrics: GatewayMetrics,
    private readonly intervalMs: number,
    private readonly log: Logger,
    /** Runs after each `new_block`, before the next height is announced (the block's own events). */
    private readonly afterBlock: (height: number) => Promise<void> = async () => undefined,
    /** The set changes read from blocks whose new set the node's validator list shows once `height` is committed. */
    private readonly setChanges: (height: number) => readonly SetChange[] = () => [],
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /**
   * The last view; polls once now when the node was not answering and the view is older than one
   * interval (a client connecting at start-up or just after an outage). Bounded like that, clients
   * arriving while a node rate-limits the gateway do not each add a poll to its load.
   */
  async current(): Promise<NodeView | undefined> {
    if (this.view?.reachable || (this.view !== undefined && Date.now() - this.view.last_poll_at < this.intervalMs)) return this.view;
    await this.pollOnce();
    return this.view;
  }

  get last(): NodeView | undefined {
    return this.view;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.pollOnce().finally(() => this.schedule(this.intervalMs));
    }, delay);
  }

  /**
   * One poll; concurrent callers share it. Never throws. A failed poll keeps everything the last
   * one learnt (height included) and only marks the node as not answering.
   */
  pollOnce(): Promise<void> {
    this.running ??= this.poll()
      .catch((err: unknown) => {
        const error = err instanceof Error ? err.message : String(err);
        this.metrics.pollErrors.inc();
        this.metrics.nodeUp.set(0);
        if (this.view?.reachable !== false) this.log.warn({ err: error }, 'node poll failed');
        this.view = { ...(this.view ?? emptyView()), reachable: false, status: 'node_unreachable', last_poll_at: Date.now(), error };
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async poll(): Promise<void> {
    const health = await this.reads.fresh('/health');
    // A node that rate-limits the gateway (429) or fails (5xx) still answers a JSON object,
    // `{error}`: read as a view it would say height 0, and the next good poll would announce the
    // whole chain again.
    if (health.status < 200 || health.status >= 300 || !isObject(health.body)) throw new Error(`node /health answered ${health.status}${health.status === 429 ? RATE_LIMITED_HINT : ''}`);
    const seen = viewOfHealth(health.body);
    const reported = seen.height;
    // Heights only move forward: a node behind what was already announced (a lagging failover
    // node, a chain reset under a running gateway) is followed again once it passes that height.
    this.view = { ...seen, height: Math.max(reported, this.view?.height ?? 0) };
    const height = this.view.height;
    this.metrics.nodeUp.set(1);
    this.metrics.nodeHeight.set(height);
    if (this.lastHeight === undefined) {
      this.lastHeight = reported;
      this.cache.newHeight();
    } else if (reported > this.lastHeight) {
      this.cache.newHeight();
      await this.announceBlocks(this.lastHeight + 1, reported);
    } else if (reported < this.lastHeight && !this.behindLogged) {
      this.log.warn({ announced: this.lastHeight, node: reported }, 'node is behind the height already announced; waiting for it to pass that height');
    }
    this.behindLogged = reported < this.lastHeight;
    this.events.emit('metrics', { tps: this.view.tps, height: this.lastHeight, finality_ms: this.view.finality_ms, mempool: this.view.mempool, peers: this.view.peers });
  }

  private async announceBlocks(from: number, to: number): Promise<void> {
    for (let height = from; height <= to; height++) {
      if (this.stopped) return;
      const block = await this.reads.get(`/api/v1/blocks/${height}`);
      // Not there (yet) on the node we read from: stop here and resume from this height next poll.
      if (block.status !== 200 || !isObject(block.body)) return;
      this.lastHeight = height;
      this.events.emit('new_block', block.body);
      await this.afterBlock(height);
      // A set change goes out once the node's list shows it (the height before the change's
      // effective height), with what changed; part 2's every-10-blocks update as before.
      const changes = this.setChanges(height);
      if (height % VALIDATOR_UPDATE_EVERY === 0 || changes.length > 0) {
        try {
          const v = await fetchValidators(this.reads);
          // Without each 3.9 KB public key: part 2's event carries the validators' figures, and
          // with 100 validators the keys alone would be ~400 KB to every socket every 10 blocks.
          const nodes = v.validators.map(({ public_key: _key, ...rest }) => rest);
          const change = changes.length === 0 ? {} : { changes: changes.flatMap((c) => c.validators), effective_height: Math.max(...changes.map((c) => c.effective_height)) };
          this.events.emit('validator_update', { nodes, total_staked: v.body.total_staked ?? null, height, ...change });
        } catch (err: unknown) {
          this.log.warn({ err: err instanceof Error ? err.message : String(err), height }, 'validator_update skipped');
        }
      }
    }
  }
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** A node's `/health` answer as a view; throws when it carries no height (then it is no health record). */
export function viewOfHealth(h: Record<string, unknown>): NodeView {
  const height = h.height;
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) throw new Error('node /health answered without a height');
  return {
    reachable: true,
    status: typeof h.status === 'string' ? h.status : 'ok',
    height,
    peers: num(h.peers),
    round: num(h.round),
    mempool: num(h.mempool),
    tps: num(h.tps),
    finality_ms: num(h.finality_ms),
    validator_count: num(h.validator_count),
    total_txs: num(h.total_txs),
    chain_id: typeof h.chain_id === 'string' ? h.chain_id : null,
    last_poll_at: Date.now(),
    error: null,
  };
}

export function emptyView(): NodeView {
  return { reachable: false, status: 'node_unreachable', height: 0, peers: 0, round: 0, mempool: 0, tps: 0, finality_ms: 0, validator_count: 0, total_txs: 0, chain_id: null, last_poll_at: 0, error: null };
}
