import type { Logger } from 'pino';
import type { NodeClient } from './node-client.js';
import type { ShardRouter } from './shard-router.js';

export const PARAMS_PATH = '/api/v1/governance/params';

/**
 * The protocol parameters as the gateway knows them (part 2, PROTOCOL_PARAMS_REFRESH_MS):
 * re-read from a node of shard 0 every interval, so a change passed by governance reaches the
 * gateway's own decisions (the gas price it reports for a submission) within one interval. A
 * failed read keeps the last values; a change is logged.
 */
export class ProtocolParams {
  private values = new Map<string, bigint>();
  private height: number | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: NodeClient,
    private readonly router: ShardRouter,
    private readonly refreshMs: number,
    private readonly log: Logger,
  ) {}

  /** The value last read, or undefined before the first read (or for a parameter the node does not list). */
  value(key: string): bigint | undefined {
    return this.values.get(key);
  }

  /** Height of the node's answer last read. */
  readAt(): number | null {
    return this.height;
  }

  /** One read now; false when no node answered with a parameter listing. */
  async refresh(): Promise<boolean> {
    let answer;
    try {
      answer = await this.client.request(this.router.nodesOfShard(0), 'GET', PARAMS_PATH);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'protocol parameters: no node answered; keeping the last values');
      return false;
    }
    const body = answer.body as { params?: Record<string, { value?: unknown }>; height?: unknown } | null;
    if (answer.status !== 200 || body === null || typeof body !== 'object' || typeof body.params !== 'object' || body.params === null) return false;
    const next = new Map<string, bigint>();
    for (const [key, p] of Object.entries(body.params)) {
      const v = p?.value;
      if ((typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'string' && /^-?[0-9]+$/.test(v))) next.set(key, BigInt(v));
    }
    for (const [key, v] of next) {
      const before = this.values.get(key);
      if (before !== undefined && before !== v) this.log.info({ param: key, from: before.toString(), to: v.toString(), height: body.height }, 'protocol parameter changed');
    }
    this.values = next;
    this.height = typeof body.height === 'number' ? body.height : null;
    return true;
  }

  /** Reads now and then every `refreshMs`. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
