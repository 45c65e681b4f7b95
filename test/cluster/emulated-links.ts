import { addBlackhole } from './faults.js';
import { LinkProxy } from './link-proxy.js';
import { CLEAN_LINK, checkProfile, type LinkProfile } from './link-shaper.js';
import type { NetnsCluster, NetnsHost } from './netns.js';

/**
 * Delay, jitter and loss on every link between the hosts of a `NetnsCluster`, made in userspace
 * (no `sch_netem` on this kernel): for each ordered pair (a, b) a `LinkProxy` on this machine's
 * bridge address carries a's connections to b's P2P port, a → b on the profile of that direction
 * and the answers on b → a's. A node dials its peers through `seedsOf(i)`; the direct routes
 * between hosts are blackholed, so an address learned by peer exchange (a peer's own listen
 * address) cannot bypass the emulated links. Both the proxies (in this process) and the routes (in
 * the namespaces, removed with them) go away on every exit path.
 */
export class EmulatedLinks {
  private readonly profiles = new Map<string, LinkProfile>();

  private constructor(
    private readonly cluster: NetnsCluster,
    private readonly proxies: ReadonlyMap<string, LinkProxy>,
    /** The run's seed, printed by the run: the links' schedules derive from it. */
    readonly seed: number,
  ) {}

  static async open(cluster: NetnsCluster, port: number, seed: number): Promise<EmulatedLinks> {
    const proxies = new Map<string, LinkProxy>();
    const links = new EmulatedLinks(cluster, proxies, seed);
    try {
      for (const a of cluster.hosts) {
        for (const b of cluster.hosts) {
          if (a === b) continue;
          const name = `${a.index}>${b.index}`;
          proxies.set(name, await LinkProxy.open({ listenHost: cluster.gatewayIp, target: { host: b.ip, port }, forward: () => links.profile(a, b), backward: () => links.profile(b, a), seed, name }));
          addBlackhole(a, b);
        }
      }
    } catch (err) {
      await links.close();
      throw err;
    }
    return links;
  }

  /** Where host i dials each other host (its P2P seeds). */
  seedsOf(i: number): string[] {
    return this.cluster.hosts.filter((h) => h.index !== i).map((h) => this.proxies.get(`${i}>${h.index}`)!.address);
  }

  profile(from: NetnsHost, to: NetnsHost): LinkProfile {
    return this.profiles.get(`${from.index}>${to.index}`) ?? CLEAN_LINK;
  }

  /** The link from `from` to `to` behaves as `p` from its next segment on. */
  shape(from: NetnsHost, to: NetnsHost, p: LinkProfile): void {
    this.profiles.set(`${from.index}>${to.index}`, checkProfile(p));
  }

  /** Whether any link is shaped now. */
  get shaped(): boolean {
    return this.profiles.size > 0;
  }

  /** Every link clean again (bytes already held still arrive on their schedule). */
  clear(): void {
    this.profiles.clear();
  }

  /** Bytes held by the links now. */
  get heldBytes(): number {
    let n = 0;
    for (const p of this.proxies.values()) n += p.heldBytes;
    return n;
  }

  async close(): Promise<void> {
    await Promise.all([...this.proxies.values()].map((p) => p.close()));
  }
}
