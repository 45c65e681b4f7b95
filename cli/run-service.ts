import { ConfigError } from '../kernel/config/env.js';

export interface RunningService {
  readonly log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  stop(): Promise<void>;
  /** SIGHUP: re-read the config and load or unload service plugins (the node). */
  reload?(): Promise<void>;
  /** Settles when the service cannot go on (the node: a full disk); the process then stops cleanly and exits 1. */
  readonly fault?: Promise<Error>;
}

/**
 * Starts a long-running process profile (node, gateway): a configuration error exits 2 with the
 * message naming the field; SIGINT/SIGTERM stop it cleanly (exit 0) or report why not (exit 1);
 * SIGHUP reloads what the profile can reload without a restart (the node: service plugins); a
 * fault the service reports (the node's full disk) stops it cleanly too, and exits 1 with the
 * reason on stderr, so a supervisor sees a failure and an operator reads why.
 */
export async function runService(verb: string, start: () => Promise<RunningService>): Promise<void> {
  let running: RunningService;
  try {
    running = await start();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`chain ${verb}: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const shutdown = (signal: string, code = 0): void => {
    running.log.info({ signal }, 'shutting down');
    running.stop().then(
      () => process.exit(code),
      (err: unknown) => {
        running.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const reload = running.reload?.bind(running);
  if (reload) {
    // One reload at a time; a failed reload is logged and the process keeps running.
    let reloading: Promise<void> = Promise.resolve();
    process.on('SIGHUP', () => {
      running.log.info({ signal: 'SIGHUP' }, 'reloading the config');
      reloading = reloading.then(reload).catch((err: unknown) => running.log.error({ err }, 'reload failed; nothing changed'));
    });
  }
  void running.fault?.then((err) => {
    process.stderr.write(`chain ${verb}: ${err.message}\n`);
    shutdown('fault', 1);
  });
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
