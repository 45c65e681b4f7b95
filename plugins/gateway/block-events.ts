import type { Logger } from 'pino';
import { isFractionText, type PluginEventSpec } from '../../kernel/sdk.js';
import type { EventBus } from './event-bus.js';
import { isObject } from './node-client.js';
import type { NodeReads } from './node-reads.js';

/** The kernel's block event for a validator set change (kernel/chain/executor.ts). */
export const KERNEL_SET_CHANGE = 'validator_update';

/** A validator set change a block made: `validators` (address, power; 0 = out) in force from `effective_height`. */
export interface SetChange {
  readonly height: number;
  readonly effective_height: number;
  readonly validators: readonly Record<string, unknown>[];
}

/** Heights the relay still catches up after falling behind; older ones are skipped. */
const MAX_CATCH_UP = 64;

/**
 * Pushes to socket clients the events plugins declare with `socket: true`, read from each new
 * block's stored events (`GET /api/v1/blocks/:height/events`, cached like the block): a client
 * hears of a faucet credit once a block applied it, whichever node or gateway it was sent through.
 *
 * Heights go out in order and none twice. A read that fails is retried from that height when the
 * next block is announced; a gateway more than MAX_CATCH_UP heights behind skips the oldest (and
 * says so), since a client wants the present sooner than a flood of the past.
 */
export class BlockEventRelay {
  private next: number | undefined;
  private readonly socketTypes: ReadonlySet<string>;
  /** Per event type, the fields declared `FractionText`. */
  private readonly fractionFields = new Map<string, readonly string[]>();
  private failing = false;
  /** Set changes read from blocks, not yet taken by the poller's `validator_update`. */
  private setChanges: SetChange[] = [];

  /** `events`: the socket events the build's plugins declare; the gateway defines them on its bus. */
  constructor(
    readonly events: readonly PluginEventSpec[],
    private readonly reads: Pick<NodeReads, 'get'>,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {
    this.socketTypes = new Set(events.map((e) => e.type));
    for (const e of events) {
      const fields = Object.entries(e.data?.properties ?? {}).filter(([, schema]) => isFractionText(schema)).map(([name]) => name);
      if (fields.length > 0) this.fractionFields.set(e.type, fields);
    }
  }

  /**
   * An event's data as socket clients get it: a score or confidence the block holds as text
   * (`FractionText`: no floating point in consensus) becomes the JSON number it spells, as in
   * every REST answer (part 1, Transaction scoring 1).
   */
  private forSocket(type: string, data: Record<string, unknown>): Record<string, unknown> {
    const fields = this.fractionFields.get(type);
    if (fields === undefined) return data;
    const out = { ...data };
    for (const f of fields) if (typeof out[f] === 'string') out[f] = Number(out[f]);
    return out;
  }

  /** After the poller announced `height`: relays every height not yet relayed up to it. Never throws. */
  async relayUpTo(height: number): Promise<void> {
    // The first block seen, or a node whose chain is shorter than the last one's: follow it.
    if (this.next === undefined || height < this.next) this.next = height;
    if (height - this.next >= MAX_CATCH_UP) {
      this.log.warn({ from: this.next, to: height - MAX_CATCH_UP }, 'block events of these heights were not relayed (too far behind)');
      this.next = height - MAX_CATCH_UP + 1;
    }
    while (this.next <= height) {
      if (!(await this.relay(this.next))) return;
      this.next++;
    }
  }

  /**
   * The set changes whose new set GET /api/v1/validators shows once the node has committed
   * `height` (it answers the set of the next height), taken once each.
   */
  takeSetChanges(height: number): SetChange[] {
    const due = this.setChanges.filter((c) => c.effective_height <= height + 1);
    if (due.length > 0) this.setChanges = this.setChanges.filter((c) => c.effective_height > height + 1);
    return due;
  }

  private noteSetChange(height: number, data: Record<string, unknown>): void {
    const effective = data.effective_height;
    if (typeof effective !== 'number' || !Array.isArray(data.validators)) return;
    this.setChanges.push({ height, effective_height: effective, validators: data.validators.filter(isObject) });
  }

  private async relay(height: number): Promise<boolean> {
    let problem: string;
    try {
      const answer = await this.reads.get(`/api/v1/blocks/${height}/events`);
      if (answer.status === 200 && isObject(answer.body) && Array.isArray(answer.body.events)) {
        for (const e of answer.body.events as unknown[]) {
          if (!isObject(e) || typeof e.type !== 'string' || !isObject(e.data)) continue;
          if (this.socketTypes.has(e.type)) this.bus.emit(e.type, this.forSocket(e.type, e.data));
          else if (e.type === KERNEL_SET_CHANGE) this.noteSetChange(height, e.data);
        }
        this.failing = false;
        return true;
      }
      problem = `the node answered ${answer.status}`;
    } catch (err: unknown) {
      problem = err instanceof Error ? err.message : String(err);
    }
    // Once per outage, not once per poll.
    if (!this.failing) this.log.warn({ height, problem }, 'block events unavailable; retrying from this height at the next block');
    this.failing = true;
    return false;
  }
}
