import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain } from '../helpers/chain-fixture.js';
import { testReplica } from '../helpers/test-replica.js';
import { testSeed } from '../helpers/prng.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import type { TimeoutConfig } from '../../kernel/consensus/timeouts.js';
import { testNode } from '../../kernel/p2p/tcp/testkit.js';
import type { Chain } from '../../kernel/chain/chain.js';
import type { Replica } from '../../kernel/replica/replica.js';
import type { TcpTransport } from '../../kernel/p2p/tcp/tcp-transport.js';
import { LinkProxy } from '../cluster/link-proxy.js';
import type { LinkProfile } from '../cluster/link-shaper.js';

/*
 * The emulated links catch a bug that loopback hides, shown once on a deliberately broken build
 * and kept: consensus timeouts that do not grow with the round. Tendermint is live only because
 * some round's timeouts outlast the network's delay (kernel/consensus/timeouts.ts); a build whose
 * timeouts stay at their first value decides on loopback, where every message arrives within a
 * millisecond, and never behind links slower than those timeouts. The sound build decides behind
 * the same links. Four real replicas (real ML-DSA, real TCP transports) in this process, each
 * dialling the others through a `LinkProxy`.
 */

const keys = [0, 1, 2, 3].map((i) => nobleProvider.keygen(new Uint8Array(32).fill(180 + i)));
const address = (i: number): string => `chain:v${i}.node`;
const GENESIS = keys.map((key, i) => ({ address: address(i), key, stake: '10' }));
/** Every segment 150–250 ms late, 10 % stalled 200 ms or more: slower than the broken build's 100 ms timeouts. */
const SLOW: LinkProfile = { delayMs: 150, jitterMs: 100, lossPercent: 10, rtoMs: 200, maxRetransmits: 2 };
const BASE = { proposeBaseMs: 100, prevoteBaseMs: 100, precommitBaseMs: 100 };
const SOUND: Partial<TimeoutConfig> = BASE; // the default growth per round: +500 / +250 / +250 ms
const NO_GROWTH: Partial<TimeoutConfig> = { ...BASE, proposeDeltaMs: 0, prevoteDeltaMs: 0, precommitDeltaMs: 0 };
const TARGET = 3;

/** Four replicas with `timeouts`, linked directly (`links` null) or through emulated links; the heights each reached within `withinMs`. */
async function heightsReached(o: { readonly links: LinkProfile | null; readonly timeouts: Partial<TimeoutConfig>; readonly seed: number; readonly withinMs: number }): Promise<{ heights: number[]; ms: number }> {
  // No listen address is advertised, so peer exchange cannot lead a node around the proxies.
  const transports: TcpTransport[] = keys.map((nodeKey, i) => testNode(i, { nodeKey, advertiseAddress: '' }));
  const proxies: LinkProxy[] = [];
  const chains: Chain[] = [];
  const replicas: Replica[] = [];
  try {
    const ports = await Promise.all(transports.map((t) => t.start()));
    for (let a = 0; a < 4; a++) {
      for (let b = 0; b < 4; b++) {
        if (a === b) continue;
        let via = `127.0.0.1:${ports[b]!}`;
        if (o.links) {
          const link = o.links;
          const proxy = await LinkProxy.open({ listenHost: '127.0.0.1', target: { host: '127.0.0.1', port: ports[b]! }, forward: () => link, backward: () => link, seed: o.seed, name: `${a}>${b}` });
          proxies.push(proxy);
          via = proxy.address;
        }
        transports[a]!.addSeed(`${transports[b]!.selfId}@${via}`);
      }
    }
    for (let i = 0; i < 4; i++) {
      const { chain } = await makeChain({ validators: GENESIS });
      chains.push(chain);
      replicas.push(testReplica({ chain, transport: transports[i]!, signer: { address: address(i), keyPair: keys[i]! }, pace: { blockMs: 20, emptyBlockMs: 20 }, liveMs: 200, timeouts: o.timeouts }));
    }
    const started = Date.now();
    for (const r of replicas) await r.start();
    const deadline = started + o.withinMs;
    while (Date.now() < deadline && !chains.every((c) => c.head.height >= TARGET)) await new Promise((r) => setTimeout(r, 50));
    return { heights: chains.map((c) => c.head.height), ms: Date.now() - started };
  } finally {
    for (const r of replicas) await r.stop();
    for (const t of transports) await t.stop();
    for (const p of proxies) await p.close();
  }
}

test('timeouts that do not grow with the round: decided on loopback, never behind slow, lossy links; the sound build decides behind them', async (t) => {
  const seed = testSeed('slow-links');
  const broken = await heightsReached({ links: null, timeouts: NO_GROWTH, seed, withinMs: 30_000 });
  t.diagnostic(`the broken build on loopback: heights ${broken.heights.join(', ')} in ${broken.ms} ms`);
  assert.ok(broken.heights.every((h) => h >= TARGET), `the broken build decides on loopback (heights ${broken.heights.join(', ')})`);

  const sound = await heightsReached({ links: SLOW, timeouts: SOUND, seed, withinMs: 60_000 });
  t.diagnostic(`links seeded by ${seed} (TEST_SEED=${seed}): the sound build reached heights ${sound.heights.join(', ')} behind them in ${sound.ms} ms`);
  assert.ok(sound.heights.every((h) => h >= TARGET), `the sound build decides behind the emulated links (heights ${sound.heights.join(', ')}); seed ${seed}`);

  const caught = await heightsReached({ links: SLOW, timeouts: NO_GROWTH, seed, withinMs: 15_000 });
  t.diagnostic(`the broken build behind the same links: heights ${caught.heights.join(', ')} in ${caught.ms} ms`);
  // A loaded machine fires timers late, which lets the broken build decide now and then: what the emulated links
  // must show is that it stays well short of what the sound build reached behind the same links.
  assert.ok(caught.heights.every((h) => h < TARGET), `the broken build stays below height ${TARGET} behind the emulated links (heights ${caught.heights.join(', ')}); seed ${seed}`);
});
