/** What `chain top` knows of one node at one moment (decisions.md §88): one row of its frame. */
export type NodeSnapshot =
  | {
      readonly url: string;
      readonly up: true;
      /** The node's `.node` (`/status` `node_address`); null for a node outside the validator set. */
      readonly node_address: string | null;
      readonly moniker: string | null;
      readonly height: number;
      readonly round: number;
      /** Proposer of its last block; '' before block 1. */
      readonly proposer: string;
      readonly tps: number;
      readonly mempool: number;
      readonly peers: number;
      /** Seconds from its last block's timestamp to when the snapshot was taken; null before block 1. */
      readonly since_block_s: number | null;
    }
  | { readonly url: string; readonly up: false; readonly node_address: string | null; readonly error: string };

const TIMEOUT_MS = 2_000;

async function getJson(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${res.status} from ${url}`);
  return (await res.json()) as Record<string, unknown>;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * Reads a node's `/status`, `/health` and last block. A node that does not answer all three is
 * `down`, keeping the address it had last time (`known`), so the row stays recognisable.
 */
export async function takeSnapshot(url: string, known: string | null = null, now: () => number = Date.now): Promise<NodeSnapshot> {
  const base = url.replace(/\/+$/, '');
  try {
    const [status, health, blocks] = await Promise.all([getJson(`${base}/status`), getJson(`${base}/health`), getJson(`${base}/api/v1/blocks?limit=1`)]);
    const last = Array.isArray(blocks.blocks) ? (blocks.blocks[0] as Record<string, unknown> | undefined) : undefined;
    return {
      url: base,
      up: true,
      node_address: typeof status.node_address === 'string' ? status.node_address : null,
      moniker: typeof status.moniker === 'string' ? status.moniker : null,
      height: num(health.height),
      round: num(health.round),
      proposer: typeof last?.proposer === 'string' ? last.proposer : '',
      tps: num(health.tps),
      mempool: num(health.mempool),
      peers: num(health.peers),
      since_block_s: last && typeof last.timestamp === 'number' ? Math.max(0, Math.round((now() - last.timestamp) / 100) / 10) : null,
    };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return { url: base, up: false, node_address: known, error: cause ?? (e as Error).message };
  }
}
