import { NodeClient, NodeRefusal } from '../client/node-client.js';
import { signOperationBody } from '../client/operation-body.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import type { LoadedKey } from '../../kernel/crypto/keyfile.js';
import type { OperationRegistry } from '../../kernel/ops/registry.js';

/*
 * One chain as the relayer sees it: its RPC reads of decisions.md §64–69 (headers, clients,
 * channels, packets, state proofs at a height) and the submission of signed ibc_* operations.
 * Nothing is cached between polls: every answer is the chain's as it stands.
 */

/** A §64 header record as served (passed on unchanged as `client/update`'s `header`). */
export type ServedHeader = Record<string, unknown> & { readonly height: number };

export interface ClientState {
  readonly chain_id: string;
  readonly latest_height: number;
  /** Verified heights usable as `proof_height`, ascending (the last 100). */
  readonly heights: readonly number[];
  readonly updated_height: number;
  /** The set it trusts: the `validators` of the last header it verified. */
  readonly validators: readonly WireValidator[];
}

/** A validator as headers and clients list it (power a JSON integer, or decimal text beyond 2^53). */
export interface WireValidator {
  readonly public_key: string;
  readonly power: number | string;
}

export interface ChannelState {
  readonly channel: string;
  readonly port: string;
  readonly counterparty_chain: string;
  readonly state: string;
}

export interface PacketState {
  readonly id: string;
  readonly kind: string;
  readonly channel: string;
  readonly sequence: number;
  readonly source_chain: string;
  readonly dest_chain: string;
  readonly sender: string;
  readonly receiver: string;
  readonly denom?: string;
  readonly amount?: number;
  readonly memo?: string;
  readonly bytecode_hash?: string;
  readonly score?: number;
  readonly model?: string;
  readonly timestamp?: number;
  readonly subject?: string;
  readonly timeout_height: number;
  readonly status: string;
  /** The block that sent (outbound) or received (inbound) it. */
  readonly height: number;
}

export interface ServedProof {
  readonly exists: boolean;
  readonly value_hex: string | null;
  readonly proof: unknown;
}

/** What the relayer needs of a chain (ChainEndpoint over RPC; an in-memory chain in its unit tests). */
export interface RelayerChain {
  readonly chainId: string;
  latestHeader(): Promise<ServedHeader | undefined>;
  header(height: number): Promise<ServedHeader | undefined>;
  client(chainId: string): Promise<ClientState | undefined>;
  channels(): Promise<ChannelState[]>;
  packets(filters: Readonly<Record<string, string>>): Promise<PacketState[]>;
  received(id: string): Promise<PacketState | undefined>;
  proof(key: string, height: number): Promise<ServedProof>;
  pending(hash: string): Promise<boolean>;
  submit(name: string, body: Readonly<Record<string, unknown>>): Promise<string>;
}

/** Where the §20 list routes stop a page. */
const PAGE = 100;

export class ChainEndpoint implements RelayerChain {
  private readonly rpc: NodeClient;
  private lastNonce = 0;

  private constructor(
    url: string,
    /** `chain_id` of `GET /api/v1/status`. */
    readonly chainId: string,
    private readonly key: LoadedKey,
    private readonly registry: OperationRegistry,
  ) {
    this.rpc = new NodeClient(url);
  }

  static async connect(url: string, key: LoadedKey, registry: OperationRegistry): Promise<ChainEndpoint> {
    const status = await new NodeClient(url).get('/api/v1/status');
    const chainId = status['chain_id'];
    if (typeof chainId !== 'string' || chainId === '') throw new Error(`${url} names no chain_id in GET /api/v1/status`);
    return new ChainEndpoint(url, chainId, key, registry);
  }

  get url(): string {
    return this.rpc.base;
  }

  /** The newest served header, or undefined before the first (404). */
  latestHeader(): Promise<ServedHeader | undefined> {
    return this.orAbsent(this.rpc.get<ServedHeader>('/api/v1/ibc/header/latest'));
  }

  /** The header at `height`, or undefined where there is none (yet). */
  header(height: number): Promise<ServedHeader | undefined> {
    return this.orAbsent(this.rpc.get<ServedHeader>(`/api/v1/ibc/header/${height}`));
  }

  /** This chain's client of `chainId`, or undefined when it has none. */
  client(chainId: string): Promise<ClientState | undefined> {
    return this.orAbsent(this.rpc.get<ClientState>(`/api/v1/ibc/client/${encodeURIComponent(chainId)}`));
  }

  channels(): Promise<ChannelState[]> {
    return this.list<ChannelState>('/api/v1/ibc/channels', 'channels', {});
  }

  /** Packets matching the §68 filters, every page, each once. */
  async packets(filters: Readonly<Record<string, string>>): Promise<PacketState[]> {
    const seen = new Map<string, PacketState>();
    for (const p of await this.list<PacketState>('/api/v1/ibc/packets', 'packets', filters)) seen.set(p.id, p);
    return [...seen.values()];
  }

  /** The inbound packet `id` this chain received, or undefined. */
  async received(id: string): Promise<PacketState | undefined> {
    const page = await this.rpc.get<{ packets: PacketState[] }>(`/api/v1/ibc/packets?${new URLSearchParams({ direction: 'in', id })}`);
    return page.packets.find((p) => p.id === id);
  }

  /** §66: `key` under block `height`'s state root (membership or absence). */
  proof(key: string, height: number): Promise<ServedProof> {
    return this.rpc.get<ServedProof>(`/api/v1/state/proof?${new URLSearchParams({ key, height: String(height) })}`);
  }

  /** Whether the transaction `hash` still waits in the pool (a submission still in flight). */
  async pending(hash: string): Promise<boolean> {
    const tx = await this.orAbsent(this.rpc.get(`/api/v1/transactions/${encodeURIComponent(hash)}`));
    return tx !== undefined && tx['status'] === 'pending';
  }

  /**
   * Signs `name` with the relayer's key (`ch-tx-v4` naming this chain, at its base fee, a
   * millisecond nonce above the last one this process used) and submits it; answers the
   * `tx_hash`. A refusal throws the node's NodeRefusal (status and message).
   */
  async submit(name: string, body: Readonly<Record<string, unknown>>): Promise<string> {
    const gasPrice = BigInt((await this.rpc.get('/api/v1/gas/estimate'))['base_fee'] as number);
    // A restarted relayer starts from the clock, which is past every nonce the last run used.
    this.lastNonce = Math.max(Date.now(), this.lastNonce + 1);
    const signed = signOperationBody(this.registry, name, body, this.key, { layout: 'v4', chainId: this.chainId, nonce: this.lastNonce, gasPrice }, nobleProvider);
    const answer = await this.rpc.post(signed.path, signed.body);
    return String(answer['tx_hash']);
  }

  private async list<T>(path: string, field: string, filters: Readonly<Record<string, string>>): Promise<T[]> {
    const rows: T[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.rpc.get<Record<string, unknown>>(`${path}?${new URLSearchParams({ ...filters, limit: String(PAGE), offset: String(offset) })}`);
      const items = (page[field] ?? []) as T[];
      rows.push(...items);
      if (page['has_more'] !== true || items.length === 0) return rows;
    }
  }

  private async orAbsent<T>(p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (e) {
      if (e instanceof NodeRefusal && e.status === 404) return undefined;
      throw e;
    }
  }
}
