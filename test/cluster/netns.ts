import { execFileSync, spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * Hosts for multi-host tests on one Linux machine: each host is a network namespace with its own
 * IP on a private bridge (a veth pair per host), so processes bind their own address, reach each
 * other over a real network stack and can be cut off one by one. Needs root and `ip`
 * (`NetnsCluster.unavailable()` says why not); `tc` for `netem`.
 *
 *   const cluster = NetnsCluster.create(4);
 *   const proc = cluster.spawn(cluster.hosts[0], ['node', 'app.js'], { env });
 *   cluster.cutLink(cluster.hosts[2]);  cluster.healLink(cluster.hosts[2]);
 *   cluster.netem(cluster.hosts[1], 'delay 50ms loss 1%');
 *   await cluster.destroy();
 *
 * Every name carries a random id, so parallel runs never collide. Everything created is removed
 * by `destroy()`, on process exit, on SIGINT, SIGTERM and uncaught exceptions, and, should this
 * process be killed outright, by a detached reaper that waits for it to disappear.
 */
export interface NetnsHost {
  readonly index: number;
  /** Network namespace name. */
  readonly netns: string;
  /** The host's address on the bridge. */
  readonly ip: string;
  /** Host-side end of its veth pair: cut, heal and shape traffic here. */
  readonly link: string;
}

const IP = 'ip';

function run(args: readonly string[]): void {
  execFileSync(IP, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function tryRun(cmd: string, args: readonly string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/** A /24 of 10.0.0.0/8 no interface or route of this machine uses. */
function freeSubnet(id: Buffer): string {
  const used = spawnSync(IP, ['-4', '-o', 'addr'], { encoding: 'utf8' }).stdout + spawnSync(IP, ['-4', 'route'], { encoding: 'utf8' }).stdout;
  for (let attempt = 0; attempt < 64; attempt++) {
    const a = (id[0]! + attempt * 37) % 250 + 1;
    const b = (id[1]! + attempt * 101) % 250 + 1;
    const prefix = `10.${a}.${b}.`;
    if (!used.includes(prefix)) return prefix;
  }
  throw new Error('no free 10.x.y.0/24 subnet for the test bridge');
}

const live = new Set<NetnsCluster>();
let handlersInstalled = false;

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const c of live) c.destroySync();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      for (const c of live) c.destroySync();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
  process.on('uncaughtException', (err) => {
    for (const c of live) c.destroySync();
    process.stderr.write(`${err.stack ?? String(err)}\n`);
    process.exit(1);
  });
}

export class NetnsCluster {
  readonly hosts: NetnsHost[] = [];
  private readonly processes = new Set<ChildProcess>();
  private reaper: ChildProcess | undefined;
  private destroyed = false;

  private constructor(
    /** Random hex carried by every name this cluster creates. */
    readonly id: string,
    readonly bridge: string,
    /** `10.a.b.` : hosts are .10 and up; this machine is .1 on the bridge. */
    readonly subnet: string,
  ) {}

  /** Why multi-host tests cannot run here, or undefined when they can (root, `ip`, namespaces). */
  static unavailable(): string | undefined {
    if (process.platform !== 'linux') return 'network namespaces need Linux';
    if (process.getuid?.() !== 0) return 'network namespaces need root (run as root, as CI does)';
    if (!tryRun(IP, ['-V'])) return 'the ip command (iproute2) is not installed';
    const probe = `pqprobe-${randomBytes(4).toString('hex')}`;
    if (!tryRun(IP, ['netns', 'add', probe])) return '"ip netns add" failed (no CAP_SYS_ADMIN in this container?)';
    tryRun(IP, ['netns', 'del', probe]);
    return undefined;
  }

  /** Why `netem` cannot shape traffic here (no `tc`, no sch_netem in the kernel), or undefined when it can. */
  static netemUnavailable(): string | undefined {
    const probe = `pqprobe-${randomBytes(4).toString('hex')}`;
    if (!tryRun(IP, ['netns', 'add', probe])) return '"ip netns add" failed';
    try {
      const r = spawnSync(IP, ['netns', 'exec', probe, 'tc', 'qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms'], { encoding: 'utf8' });
      if (r.error) return 'the tc command (iproute2) is not installed';
      return r.status === 0 ? undefined : `tc cannot add a netem qdisc: ${r.stderr.trim()} (the kernel lacks sch_netem?)`;
    } finally {
      tryRun(IP, ['netns', 'del', probe]);
    }
  }

  /** The address this machine has on the bridge: where the hosts' servers are reached from the test. */
  get gatewayIp(): string {
    return `${this.subnet}1`;
  }

  /** A bridge with `count` hosts on it. */
  static create(count: number): NetnsCluster {
    const raw = randomBytes(3);
    const id = raw.toString('hex');
    const cluster = new NetnsCluster(id, `pqc${id}br`, freeSubnet(raw));
    installExitHandlers();
    live.add(cluster);
    cluster.startReaper();
    try {
      run(['link', 'add', cluster.bridge, 'type', 'bridge']);
      run(['addr', 'add', `${cluster.gatewayIp}/24`, 'dev', cluster.bridge]);
      run(['link', 'set', cluster.bridge, 'up']);
      for (let i = 0; i < count; i++) cluster.addHost();
    } catch (e) {
      cluster.destroySync();
      throw e;
    }
    return cluster;
  }

  /** One more host on the bridge. */
  addHost(): NetnsHost {
    const index = this.hosts.length;
    if (index >= 200) throw new Error('at most 200 hosts');
    const host: NetnsHost = { index, netns: `pqc-${this.id}-${index}`, ip: `${this.subnet}${10 + index}`, link: `pqc${this.id}h${index}` };
    const inner = `pqc${this.id}n${index}`;
    this.hosts.push(host);
    run(['netns', 'add', host.netns]);
    run(['-n', host.netns, 'link', 'set', 'lo', 'up']);
    run(['link', 'add', host.link, 'type', 'veth', 'peer', 'name', inner]);
    run(['link', 'set', inner, 'netns', host.netns]);
    run(['-n', host.netns, 'link', 'set', inner, 'name', 'eth0']);
    run(['-n', host.netns, 'addr', 'add', `${host.ip}/24`, 'dev', 'eth0']);
    run(['-n', host.netns, 'link', 'set', 'eth0', 'up']);
    run(['-n', host.netns, 'route', 'add', 'default', 'via', this.gatewayIp]);
    run(['link', 'set', host.link, 'master', this.bridge]);
    run(['link', 'set', host.link, 'up']);
    return host;
  }

  /** Starts `argv` inside the host's namespace (killed by `destroy`). */
  spawn(host: NetnsHost, argv: readonly string[], options: SpawnOptions = {}): ChildProcess {
    if (this.destroyed) throw new Error('the cluster is destroyed');
    const child = spawn(IP, ['netns', 'exec', host.netns, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    this.processes.add(child);
    child.once('exit', () => this.processes.delete(child));
    return child;
  }

  /** Runs `argv` inside the host's namespace to completion. */
  exec(host: NetnsHost, argv: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync(IP, ['netns', 'exec', host.netns, ...argv], { encoding: 'utf8', ...options });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** Takes the host off the bridge (its link down): a partition of one. */
  cutLink(host: NetnsHost): void {
    run(['link', 'set', host.link, 'down']);
  }

  healLink(host: NetnsHost): void {
    run(['link', 'set', host.link, 'up']);
  }

  /** Shapes the traffic towards the host with netem, e.g. `delay 50ms 10ms loss 1%`; replaces any earlier shaping. */
  netem(host: NetnsHost, spec: string): void {
    execFileSync('tc', ['qdisc', 'replace', 'dev', host.link, 'root', 'netem', ...spec.split(/\s+/).filter(Boolean)], { stdio: ['ignore', 'ignore', 'pipe'] });
  }

  clearNetem(host: NetnsHost): void {
    tryRun('tc', ['qdisc', 'del', 'dev', host.link, 'root']);
  }

  /** Kills every process started in the hosts and removes hosts, links and bridge. */
  async destroy(): Promise<void> {
    const exits = [...this.processes].map((p) => new Promise<void>((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve() : p.once('exit', () => resolve()))));
    for (const p of this.processes) p.kill('SIGKILL');
    await Promise.all(exits);
    this.destroySync();
  }

  /** The synchronous teardown the exit handlers run: nothing here may wait for an event. */
  destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    live.delete(this);
    for (const p of this.processes) p.kill('SIGKILL');
    for (const h of this.hosts) {
      // Whatever still runs inside (a grandchild) would keep the namespace alive.
      const pids = spawnSync(IP, ['netns', 'pids', h.netns], { encoding: 'utf8' }).stdout.split(/\s+/).filter(Boolean);
      for (const pid of pids) tryRun('kill', ['-9', pid]);
      tryRun(IP, ['link', 'del', h.link]);
      tryRun(IP, ['netns', 'del', h.netns]);
    }
    tryRun(IP, ['link', 'del', this.bridge]);
    this.reaper?.kill('SIGKILL');
  }

  /**
   * A detached shell that outlives this process: once it is gone (even by SIGKILL, which no
   * handler sees) it removes whatever of this cluster is left. Names are matched by this cluster's id.
   */
  private startReaper(): void {
    const script = [
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
      `for ns in $(ip netns list | awk '{print $1}' | grep '^pqc-${this.id}-'); do for p in $(ip netns pids "$ns"); do kill -9 "$p"; done; ip netns del "$ns"; done`,
      `for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^pqc${this.id}'); do ip link del "$l"; done`,
    ].join('\n');
    this.reaper = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
    this.reaper.unref();
  }
}
