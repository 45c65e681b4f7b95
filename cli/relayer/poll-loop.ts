import type { Logger } from 'pino';

/**
 * A relayer's loop (`chain relayer`, `chain relay-shards`): `poll` every `intervalMs` until
 * stop(); a failed poll (a node down, a read refused) is logged and the next one runs. stop()
 * ends the loop after the poll under way, so a submission is never cut in half.
 */
export class PollLoop {
  private stopped = false;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly log: Logger,
    private readonly poll: () => Promise<void>,
  ) {}

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        try {
          await this.poll();
        } catch (err) {
          this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'poll failed; trying again next poll');
        }
        if (this.stopped) break;
        await new Promise<void>((res) => {
          const timer = setTimeout(res, this.intervalMs);
          this.wake = () => {
            clearTimeout(timer);
            res();
          };
        });
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }
}
