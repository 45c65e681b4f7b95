import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import type { EmulatedLinks } from './emulated-links.js';
import type { LinkProfile } from './link-shaper.js';
import type { NetnsCluster, NetnsHost } from './netns.js';

/**
 * Faults between the hosts of a `NetnsCluster`, and to their processes.
 *
 * Links are cut with blackhole routes inside the hosts' namespaces (`ip route add blackhole
 * <peer>/32`): this machine's kernel has no `sch_netem` and no tc actions (gact, u32 drop), but
 * routes work everywhere `ip netns` does. Random loss uses nftables (`numgen random … drop`) in
 * the sender's namespace when the `nft` binary is installed (`.ci/run` installs it); nothing here
 * delays packets, so there is no jitter without netem. A blackhole drops silently,
 * as a broken switch would (a `prohibit` route would answer at once, which a real partition does
 * not), per direction: `cut(a, b)` is both ways, `cutOneWay(a, b)` only a's packets to b. Each
 * host keeps its link to this machine, so the test reads every node throughout. The routes live in
 * the namespaces, so `cluster.destroy()` (on every exit path) removes them with the hosts.
 *
 * Processes are paused with SIGSTOP and resumed with SIGCONT (a VM stall, a GC pause), killed with
 * SIGKILL; every paused one is resumed by `healAll`. A clock skew is set per process when it starts
 * (`CHAIN_CLOCK_OFFSET_MS`, kernel/node/clock.ts): see `skewedEnv`.
 */
/** Packets from `from` to `to`'s address dropped silently, by a route in `from`'s namespace. */
export function addBlackhole(from: NetnsHost, to: NetnsHost): void {
  execFileSync('ip', ['-n', from.netns, 'route', 'add', 'blackhole', `${to.ip}/32`], { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function removeBlackhole(from: NetnsHost, to: NetnsHost): void {
  spawnSync('ip', ['-n', from.netns, 'route', 'del', 'blackhole', `${to.ip}/32`], { stdio: 'ignore' });
}

export class Faults {
  /** `from>to` for every direction cut now. */
  private readonly cuts = new Set<string>();
  /** `from>to` → the percentage of packets dropped on that direction. */
  private readonly losses = new Map<string, number>();
  private readonly paused = new Set<ChildProcess>();
  /** What was done, in order, with the test clock's time: printed with a failing check's window. */
  readonly log: string[] = [];
  /** Set when the hosts talk through emulated links (delay, jitter, loss: emulated-links.ts). */
  links: EmulatedLinks | undefined;

  constructor(
    private readonly cluster: NetnsCluster,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  private note(what: string): void {
    this.log.push(`${this.clock()} ${what}`);
  }

  /** Packets from `from` to `to` are dropped (`to` still reaches `from`). */
  cutOneWay(from: NetnsHost, to: NetnsHost): void {
    const key = `${from.index}>${to.index}`;
    if (this.cuts.has(key)) return;
    // Behind emulated links every direct route is a blackhole already and the traffic goes through the proxies.
    if (this.links) throw new Error('links are emulated here: cut them with a blackhole in a cluster without EmulatedLinks');
    addBlackhole(from, to);
    this.cuts.add(key);
    this.note(`cut ${from.index} → ${to.index}`);
  }

  healOneWay(from: NetnsHost, to: NetnsHost): void {
    const key = `${from.index}>${to.index}`;
    if (!this.cuts.delete(key)) return;
    removeBlackhole(from, to);
    this.note(`heal ${from.index} → ${to.index}`);
  }

  /** a and b cannot reach each other; both still reach every other host. */
  cut(a: NetnsHost, b: NetnsHost): void {
    this.cutOneWay(a, b);
    this.cutOneWay(b, a);
  }

  heal(a: NetnsHost, b: NetnsHost): void {
    this.healOneWay(a, b);
    this.healOneWay(b, a);
  }

  /** Every pair of hosts in different groups is cut; hosts in no group are left as they are. */
  partition(groups: ReadonlyArray<readonly NetnsHost[]>): void {
    for (let i = 0; i < groups.length; i++) for (let j = i + 1; j < groups.length; j++) for (const a of groups[i]!) for (const b of groups[j]!) this.cut(a, b);
  }

  /** One host cut from every other. */
  isolate(host: NetnsHost): void {
    this.partition([[host], this.cluster.hosts.filter((h) => h !== host)]);
  }

  /** Whether packets from `from` to `to` are dropped now. */
  isCut(from: NetnsHost, to: NetnsHost): boolean {
    return this.cuts.has(`${from.index}>${to.index}`);
  }

  pause(proc: ChildProcess, label: string): void {
    if (proc.pid === undefined || this.paused.has(proc)) return;
    process.kill(proc.pid, 'SIGSTOP');
    this.paused.add(proc);
    this.note(`pause ${label}`);
  }

  resume(proc: ChildProcess, label: string): void {
    if (proc.pid === undefined || !this.paused.delete(proc)) return;
    process.kill(proc.pid, 'SIGCONT');
    this.note(`resume ${label}`);
  }

  /** kill -9: no handler runs, nothing is flushed. */
  kill(proc: ChildProcess, label: string): void {
    proc.kill('SIGKILL');
    this.note(`kill -9 ${label}`);
  }

  /** Why `loss` cannot drop packets here (no `nft` binary), or undefined when it can. */
  static lossUnavailable(): string | undefined {
    return spawnSync('nft', ['--version'], { stdio: 'ignore' }).status === 0 ? undefined : 'the nft command (Debian package nftables) is not installed';
  }

  /**
   * `percent` % of the packets from `from` to `to` dropped at random (nft's `numgen random` in
   * `from`'s namespace; the kernel's randomness, not the test's seed). 0 clears it.
   */
  loss(from: NetnsHost, to: NetnsHost, percent: number): void {
    if (!Number.isInteger(percent) || percent < 0 || percent > 100) throw new RangeError(`loss must be 0..100 %, got ${percent}`);
    const key = `${from.index}>${to.index}`;
    if (percent === 0) this.losses.delete(key);
    else this.losses.set(key, percent);
    this.note(`loss ${from.index} → ${to.index} ${percent} %`);
    // The namespace's rules are rebuilt whole: simpler than tracking nft rule handles.
    const nft = (args: readonly string[]): void => void execFileSync('ip', ['netns', 'exec', from.netns, 'nft', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    nft(['add', 'table', 'inet', 'pqfault']);
    nft(['add', 'chain', 'inet', 'pqfault', 'out', '{ type filter hook output priority 0; }']);
    nft(['flush', 'chain', 'inet', 'pqfault', 'out']);
    for (const [k, p] of this.losses) {
      const [f, t] = k.split('>').map(Number);
      if (f !== from.index) continue;
      nft(['add', 'rule', 'inet', 'pqfault', 'out', 'ip', 'daddr', this.cluster.hosts[t!]!.ip, 'numgen', 'random', 'mod', '100', '<', String(p), 'drop']);
    }
  }

  /**
   * The emulated link from `from` to `to` delays, jitters and stalls as `p` says (link-shaper.ts);
   * needs a cluster started with emulated links.
   */
  shape(from: NetnsHost, to: NetnsHost, p: LinkProfile): void {
    if (!this.links) throw new Error('shape needs emulated links (ValidatorHosts.start with { emulatedLinks: true })');
    this.links.shape(from, to, p);
    this.note(`link ${from.index} → ${to.index}: delay ${p.delayMs} ms + jitter < ${p.jitterMs} ms, ${p.lossPercent} % loss (stalls from ${p.rtoMs} ms, ≤ ${p.maxRetransmits} retransmissions)`);
  }

  /** Every link healed, every loss and shaping cleared, every paused process resumed. */
  healAll(): void {
    if (this.links?.shaped) {
      this.links.clear();
      this.note('every emulated link clean');
    }
    for (const key of [...this.losses.keys()]) {
      const [from, to] = key.split('>').map(Number);
      this.loss(this.cluster.hosts[from!]!, this.cluster.hosts[to!]!, 0);
    }
    for (const key of [...this.cuts]) {
      const [from, to] = key.split('>').map(Number);
      this.healOneWay(this.cluster.hosts[from!]!, this.cluster.hosts[to!]!);
    }
    for (const proc of [...this.paused]) this.resume(proc, `pid ${proc.pid}`);
  }
}

/** The environment that starts a node on a clock `offsetMs` off this machine's (kernel/node/clock.ts). */
export function skewedEnv(offsetMs: number, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, CHAIN_CLOCK_OFFSET_MS: String(offsetMs) };
}

/**
 * A link that goes down and up at seeded random intervals until `stop` is called: flapping.
 * `rand` is the test's seeded PRNG, so a run's schedule replays from its seed.
 */
export function flap(faults: Faults, a: NetnsHost, b: NetnsHost, rand: () => number, periodMs: { readonly min: number; readonly max: number }): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const toggle = (): void => {
    if (stopped) return;
    if (faults.isCut(a, b)) faults.heal(a, b);
    else faults.cut(a, b);
    timer = setTimeout(toggle, periodMs.min + Math.floor(rand() * (periodMs.max - periodMs.min)));
  };
  toggle();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      faults.heal(a, b);
    },
  };
}

/**
 * Each pair's link flapping (`flap`) for `durationMs`, then healed: resolves with the highest
 * height of `heightOf` before and at the end, the progress made while flapping.
 */
export async function flapFor(faults: Faults, pairs: ReadonlyArray<readonly [NetnsHost, NetnsHost]>, rand: () => number, periodMs: { readonly min: number; readonly max: number }, durationMs: number, heightOf: () => Promise<number>): Promise<{ from: number; to: number }> {
  const from = await heightOf();
  const flaps = pairs.map(([a, b]) => flap(faults, a, b, rand, periodMs));
  try {
    await new Promise((r) => setTimeout(r, durationMs));
  } finally {
    for (const f of flaps) f.stop();
  }
  return { from, to: await heightOf() };
}
