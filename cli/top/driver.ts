import { renderFrame } from './render.js';
import { takeSnapshot, type NodeSnapshot } from './snapshot.js';

export interface TopOptions {
  readonly urls: readonly string[];
  readonly intervalMs: number;
  /** One frame, no ANSI escape at all, then return (scripts). */
  readonly once: boolean;
  readonly stdout?: NodeJS.WriteStream;
  readonly env?: NodeJS.ProcessEnv;
}

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function wantsColor(stdout: Pick<NodeJS.WriteStream, 'isTTY'>, env: NodeJS.ProcessEnv): boolean {
  return stdout.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

const CLEAR = '\x1b[H\x1b[2J';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

/**
 * The plain-ANSI driver of `chain top`: takes every node's snapshot, renders the frame for the
 * terminal's width and redraws it in place every interval until `signal` aborts (Ctrl-C).
 * With `once` it prints one frame without escapes and returns.
 */
export async function runTop(o: TopOptions, signal?: AbortSignal): Promise<void> {
  const stdout = o.stdout ?? process.stdout;
  const env = o.env ?? process.env;
  const known = new Map<string, string | null>();
  const snapshotAll = async (): Promise<NodeSnapshot[]> => {
    const snaps = await Promise.all(o.urls.map((u) => takeSnapshot(u, known.get(u) ?? null)));
    for (const s of snaps) if (s.node_address !== null) known.set(s.url, s.node_address);
    return snaps;
  };
  // A terminal says its width; a pipe does not, and COLUMNS may.
  const width = (): number => stdout.columns ?? (Number(env.COLUMNS) > 0 ? Number(env.COLUMNS) : 100);
  if (o.once) {
    stdout.write(renderFrame(await snapshotAll(), width(), { color: false }) + '\n');
    return;
  }
  const color = wantsColor(stdout, env);
  const escapes = stdout.isTTY === true;
  if (escapes) stdout.write(HIDE_CURSOR);
  try {
    while (!signal?.aborted) {
      const frame = renderFrame(await snapshotAll(), width(), { color });
      stdout.write(escapes ? `${CLEAR}${frame}\n` : `${frame}\n\n`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, o.intervalMs);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    }
  } finally {
    if (escapes) stdout.write(SHOW_CURSOR);
  }
}
