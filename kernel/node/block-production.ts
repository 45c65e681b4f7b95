import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import type { NodeConfig } from '../config/schema.js';
import type { KeyPair } from '../crypto/provider.js';
import type { LoadedProvider } from '../crypto/providers/index.js';
import { VerifyPool } from '../crypto/verify-pool/index.js';
import { TcpTransport } from '../p2p/tcp/index.js';
import { parseHex } from '../codec/hex.js';
import { Replica } from '../replica/replica.js';
import { openPrivValidator } from '../replica/sign-state-file.js';
import type { NodeMetrics } from './metrics.js';
import type { ConsensusStatus, PeerView } from '../replica/consensus-status.js';
import { SoloProducer } from './solo-producer.js';
import type { LightClientHeaders } from '../replica/light-client-headers.js';
import type { Clock } from './clock.js';

export interface BlockProductionDeps {
  readonly chain: Chain;
  readonly config: NodeConfig;
  readonly chainId: string;
  /** `0x` SHA3-256 of the genesis: peers of another genesis are refused in the handshake. */
  readonly genesisHash: string;
  /** The node's `.node` address and key. */
  readonly self: string;
  readonly keys: KeyPair;
  readonly provider: LoadedProvider;
  readonly dataDir: string;
  /** Worker threads for signatures; 0 keeps consensus signatures on the main thread too. */
  readonly workers: number;
  readonly metrics: NodeMetrics;
  readonly log: Logger;
  /** Signs and collects light-client commit headers (decisions.md §64); gossips over P2P once BFT runs. */
  readonly headers?: LightClientHeaders;
  /** The node's wall clock (clock.ts): block timestamps, timeouts and pace read it. */
  readonly now: Clock;
  /** Called once when the engine stopped because a write found the disk full (the node then stops). */
  readonly diskFull?: (err: Error) => void;
}

/** Whether `self` alone signs `height` and the height after it: when the one-validator producer may make `height`. */
export async function signsAlone(chain: Chain, self: string, height: number): Promise<boolean> {
  for (const h of [height, height + 1]) {
    const set = await chain.queries.validatorSetAt(h);
    if (set.length !== 1 || set[0]!.address !== self) return false;
  }
  return true;
}

/**
 * Which engine makes this node's blocks. A network of one validator, reachable by nobody (no
 * seeds), runs the `SoloProducer`; anything else runs the BFT `Replica` over TCP, which signs at
 * the heights whose set holds this node's key and follows at the others. When a validator update
 * gives a solo chain other validators, the producer hands over before the first height the grown
 * set (or the one after) concerns, and the Replica takes it from there without a restart; its
 * P2P port opens then, and the newcomers, which dial it as their seed, catch up from it.
 *
 * There is no way back: a node that has run the Replica keeps it, also after a restart (its WAL
 * exists), even if the set shrinks to this node alone. The Replica may have sent precommits for a
 * height it had not committed, and with a set of one a precommit decides; only its WAL replay
 * knows which block that was. And the Replica serves followers catch-up and relays their
 * transactions, which the producer, with no P2P, cannot.
 */
export class BlockProduction implements ConsensusStatus {
  private solo: SoloProducer | null = null;
  private replica: Replica | null = null;
  private transport: TcpTransport | null = null;
  private consensusCrypto: VerifyPool | null = null;
  private switching: Promise<void> | null = null;
  private stopped = false;

  private constructor(private readonly d: BlockProductionDeps) {}

  static async start(d: BlockProductionDeps): Promise<BlockProduction> {
    const production = new BlockProduction(d);
    const next = d.chain.head.height + 1;
    const set = await d.chain.queries.validatorSetAt(next);
    const seeds = d.config.p2p.seeds.length > 0;
    if (!seeds && !existsSync(join(d.dataDir, 'consensus.wal')) && (await signsAlone(d.chain, d.self, next))) await production.startSolo();
    else if (seeds || set.length > 1 || set.some((v) => v.address === d.self)) await production.startBft();
    return production;
  }

  round(): number {
    return this.engine()?.round() ?? 0;
  }

  peers(): PeerView[] {
    return this.engine()?.peers() ?? [];
  }

  behind(): number {
    return this.engine()?.behind() ?? 0;
  }

  /** `host:port` the P2P listener advertises, once it runs (a solo producer has none). */
  p2pAddress(): string | undefined {
    return this.transport?.listenAddress;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.switching;
    await this.solo?.stop();
    await this.replica?.stop();
    await this.transport?.stop();
    await this.consensusCrypto?.close();
  }

  private engine(): ConsensusStatus | null {
    return this.replica ?? this.solo;
  }

  private async startSolo(): Promise<void> {
    const { chain, config, self } = this.d;
    const solo = new SoloProducer({
      chain,
      signer: await openPrivValidator({ dataDir: this.d.dataDir, address: self, keyPair: this.d.keys, provider: this.d.provider }),
      pace: { blockMs: config.consensus.block_ms, emptyBlockMs: config.consensus.empty_block_ms },
      log: this.d.log,
      now: this.d.now,
      alone: (height) => signsAlone(chain, self, height),
      handover: (height) => {
        this.switching = this.handover(height);
      },
      ...(this.d.diskFull ? { diskFull: this.d.diskFull } : {}),
    });
    this.solo = solo;
    chain.on('queued', () => solo.poke());
    solo.start();
    this.d.log.info({ proposer: self }, 'single-validator block production started');
  }

  private async handover(height: number): Promise<void> {
    await this.solo?.stop();
    if (this.stopped) return;
    this.d.log.info({ height, validators: (await this.d.chain.queries.validatorSetAt(height + 1)).length }, 'the validator set grows beyond this node: BFT consensus takes over block production');
    try {
      await this.startBft();
      this.solo = null;
    } catch (err) {
      this.d.log.fatal({ err, height }, 'could not start BFT consensus: this node produces no more blocks');
    }
  }

  private async startBft(): Promise<void> {
    const { chain, config, log, metrics } = this.d;
    const transport = new TcpTransport({
      provider: this.d.provider,
      nodeKey: this.d.keys,
      chainId: this.d.chainId,
      genesisHash: parseHex(this.d.genesisHash, 32)!,
      host: config.p2p.host,
      port: config.p2p.port,
      ...(config.p2p.external !== undefined ? { advertiseAddress: config.p2p.external } : {}),
      seeds: config.p2p.seeds,
      maxPeers: config.p2p.max_peers,
      logger: log.child({ component: 'p2p' }),
      now: this.d.now,
    });
    const p2pPort = await transport.start();
    this.transport = transport;
    log.info({ node_id: transport.selfId, port: p2pPort }, `P2P listening on ${config.p2p.host}:${p2pPort}`);
    // One worker at normal priority for consensus signatures (peers' votes verified, ours
    // signed), so they never queue behind a burst of transactions. Ours are signed with the
    // provider's own signer (PQClean's is ~4x faster than noble's): hedged signatures are safe
    // here because the double-sign guard returns what it recorded for a repeated request.
    if (this.d.workers > 0) {
      this.consensusCrypto = new VerifyPool({ provider: this.d.provider.name, size: 1, batchWindowMs: 0, signing: 'native' });
      log.info({ signer: this.d.provider.signNative ? `${this.d.provider.name} (hedged)` : 'noble (deterministic)' }, 'consensus signatures made on a worker thread');
    }
    const replica = new Replica({
      chain,
      transport,
      provider: this.d.provider,
      // Held whether or not the key is in the set: the machine signs at the heights whose set has it.
      signer: { address: this.d.self, keyPair: this.d.keys },
      dataDir: this.d.dataDir,
      pace: { blockMs: config.consensus.block_ms, emptyBlockMs: config.consensus.empty_block_ms },
      syncHistoryBlocks: config.consensus.sync_history_blocks,
      timestampPrecisionMs: config.consensus.timestamp_precision_ms,
      log: log.child({ component: 'consensus' }),
      now: this.d.now,
      ...(this.consensusCrypto ? { consensusCrypto: this.consensusCrypto } : {}),
      ...(this.d.headers ? { lightClientHeaders: this.d.headers } : {}),
      ...(this.d.diskFull ? { diskFull: this.d.diskFull } : {}),
    });
    // A relayed signature goes to every peer but the one it came from.
    this.d.headers?.attach(
      (bytes, except) => {
        for (const peer of transport.peers()) if (peer !== except) transport.send(peer, bytes);
      },
      (peer, reason) => transport.reportMisbehaviour?.(peer, 20, reason),
    );
    this.replica = replica;
    metrics.consensusSignatures = () => replica.preverifiedStats;
    metrics.proposalTxFetches = () => replica.proposalTxFetches;
    await replica.start();
    const set = await chain.queries.validatorSetAt(chain.head.height + 1);
    log.info({ validators: set.length, voting: set.some((v) => v.address === this.d.self) }, 'BFT consensus started');
  }
}
