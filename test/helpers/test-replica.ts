import pino from 'pino';
import type { Chain } from '../../kernel/chain/chain.js';
import type { KeyPair } from '../../kernel/crypto/provider.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import type { BlockPace } from '../../kernel/replica/pace.js';
import type { Transport } from '../../kernel/p2p/transport.js';
import { Replica, type ReplicaOptions } from '../../kernel/replica/replica.js';
import { tempDir } from './temp-dir.js';

export interface TestReplicaOptions {
  readonly chain: Chain;
  readonly transport: Transport;
  readonly signer: { readonly address: string; readonly keyPair: KeyPair } | null;
  /** Default: a fresh temp dir. Pass the same one to restart a node on its WAL. */
  readonly dataDir?: string;
  /** Default: an idle chain proposes after 600 s, i.e. only when a test says so. */
  readonly pace?: BlockPace;
  readonly now?: () => number;
  /** Consensus signatures off the event loop, as a node with workers has them. */
  readonly consensusCrypto?: ReplicaOptions['consensusCrypto'];
  /**
   * Timeouts, gossip and status announcements at this many milliseconds instead of 600 s: a
   * network of replicas that runs by itself, for tests that watch it rather than script it.
   */
  readonly liveMs?: number;
  /** Replaces any of the timeouts `liveMs` sets (e.g. the per-round growth, to build a replica without it). */
  readonly timeouts?: ReplicaOptions['timeouts'];
}

/**
 * A Replica driven by a test: consensus timeouts, gossip and status announcements are all 600 s
 * away, so nothing happens that the test did not inject (real ML-DSA signatures, silent logs).
 */
export function testReplica(o: TestReplicaOptions): Replica {
  return new Replica({
    chain: o.chain,
    transport: o.transport,
    provider: nobleProvider,
    signer: o.signer,
    dataDir: o.dataDir ?? tempDir('replica-'),
    pace: o.pace ?? { blockMs: 200, emptyBlockMs: 600_000 },
    syncHistoryBlocks: 100,
    log: pino({ level: 'silent' }),
    timeouts: { proposeBaseMs: o.liveMs ?? 600_000, prevoteBaseMs: o.liveMs ?? 600_000, precommitBaseMs: o.liveMs ?? 600_000, ...o.timeouts },
    gossipMs: o.liveMs ?? 600_000,
    statusMs: o.liveMs ?? 600_000,
    ...(o.now ? { now: o.now } : {}),
    ...(o.consensusCrypto ? { consensusCrypto: o.consensusCrypto } : {}),
  });
}
