import { CRYPTO_ALGORITHMS, unavailable } from '../../kernel/sdk.js';
import type { GatewayConfig } from './config.js';
import { isObject, type NodeAnswer } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import type { ShardRouter } from './shard-router.js';
import { SUMMARY_SPAN, networkFigures, type BlockPoint } from './network-figures.js';

const PAGE = 100;

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function bodyOf(answer: NodeAnswer, path: string): Record<string, unknown> {
  if (answer.status !== 200 || !isObject(answer.body)) throw unavailable(`the node answered ${answer.status} to ${path}`);
  return answer.body;
}

/**
 * `GET /api/v1/network/status` (decisions.md §88): the network as measured from its committed
 * blocks and state, no descriptive stand-in. The gateway keeps the timestamps and transaction counts
 * of the last 1 010 blocks and reads only the blocks it has not seen (the first answer after a
 * start pages through up to 11 block lists); model counts come from the registry.
 */
export class NetworkSummary {
  private readonly blocks = new Map<number, BlockPoint>();
  private running: Promise<Record<string, unknown>> | undefined;

  constructor(
    private readonly config: GatewayConfig,
    private readonly reads: NodeReads,
    private readonly router: ShardRouter,
    /** The served browser crypto module's version (decisions.md §86); null when this gateway has not built it. */
    private readonly wasmVersion: string | null,
  ) {}

  /** Concurrent requests share one computation. */
  current(): Promise<Record<string, unknown>> {
    this.running ??= this.compute().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async compute(): Promise<Record<string, unknown>> {
    const status = bodyOf(await this.reads.get('/api/v1/status'), '/api/v1/status');
    const top = await this.readBlocks();
    const figures = networkFigures(this.blocks, top);
    return {
      network: this.config.networkId,
      chain_id: status.chain_id ?? null,
      genesis_hash: status.genesis_hash ?? null,
      height: top,
      validator_count: num(status.validator_count),
      shard_count: this.router.shardCount,
      total_txs: num(status.total_txs),
      block_time_ms: figures.block_time_ms,
      tps: figures.tps,
      tps_peak: figures.tps_peak,
      crypto: CRYPTO_ALGORITHMS,
      ai_models: await this.modelCounts(),
      wasm_version: this.wasmVersion,
    };
  }

  /** Fills the last SUMMARY_SPAN blocks up to the node's tip; returns the tip. */
  private async readBlocks(): Promise<number> {
    let top = 0;
    for (let offset = 0, pages = 0; pages <= SUMMARY_SPAN / PAGE + 1; pages++) {
      const path = `/api/v1/blocks?limit=${PAGE}&offset=${offset}`;
      const page = bodyOf(await this.reads.get(path), path);
      const list = Array.isArray(page.blocks) ? page.blocks.filter(isObject) : [];
      if (pages === 0) top = num(page.total);
      let lowest = Infinity;
      for (const b of list) {
        const h = num(b.height);
        lowest = Math.min(lowest, h);
        if (h >= 1) this.blocks.set(h, { timestamp: num(b.timestamp), tx_count: num(b.tx_count) });
      }
      const from = Math.max(1, top - SUMMARY_SPAN + 1);
      if (list.length === 0 || lowest <= from || this.has(from, lowest - 1)) break;
      // The tip may have moved since the first page: the next page starts from the lowest height read.
      offset = num(page.total) - lowest + 1;
    }
    for (const h of this.blocks.keys()) if (h < top - SUMMARY_SPAN + 1 || h > top) this.blocks.delete(h);
    return top;
  }

  private has(from: number, to: number): boolean {
    for (let h = from; h <= to; h++) if (!this.blocks.has(h)) return false;
    return true;
  }

  /** `active` and `pending` entries of the model registry; null where the node keeps no registry. */
  private async modelCounts(): Promise<{ active: number; pending: number } | null> {
    const counts = { active: 0, pending: 0 };
    for (let offset = 0; ; offset += PAGE) {
      const answer = await this.reads.get(`/api/v1/models/registry?limit=${PAGE}&offset=${offset}`);
      if (answer.status === 404 && offset === 0) return null;
      const page = bodyOf(answer, '/api/v1/models/registry');
      const models = Array.isArray(page.models) ? page.models.filter(isObject) : [];
      for (const m of models) if (m.status === 'active' || m.status === 'pending') counts[m.status]++;
      if (page.has_more !== true || models.length === 0) return counts;
    }
  }
}
