import { ChainHttpError, SdkError } from './errors.js';
import { Http, type FetchLike } from './http.js';
import type { ChainKey } from './keys.js';
import { fetchOperations, pathOf, targetOf, type OperationMeta } from './operations.js';
import { ProvenReader, type ProvenAnswer } from './proven.js';
import type { SignatureCheck } from '../kernel/light-client/index.js';
import { OperationNonces, signOperation, signTransfer, type Ucoin } from './signing.js';
import { Subscription, type SocketFactory, type SubscribeOptions } from './subscribe.js';

export interface ClientOptions {
  /** A node RPC (`http://127.0.0.1:9933`) or a gateway (`http://127.0.0.1:3000`). */
  readonly url: string;
  readonly fetch?: FetchLike;
  /** How to open `/ws`; the platform's WebSocket by default (the Node entry passes `ws`). */
  readonly socket?: SocketFactory;
  /** Trust anchor of proven reads: `0x` SHA3-256 of the canonical genesis document the client pins (decisions.md §82, §85). */
  readonly genesisHash?: string;
  /** The genesis document itself; by default read from `GET /api/v1/genesis` and checked against `genesisHash`. */
  readonly genesis?: unknown;
  readonly verify?: SignatureCheck;
}

/** The answer to an admitted submission (decisions.md §17): `tx_hash`, `status` `pending`, `estimated_block`, … */
export interface Submitted {
  readonly tx_hash: string;
  readonly status: string;
  readonly estimated_block?: number;
  readonly [field: string]: unknown;
}

export interface SendOptions {
  /** ucoin per gas; the node's `base_fee` when absent. */
  readonly gasPrice?: Ucoin;
  readonly gasLimit?: number;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A client of one node or gateway: keys sign here and nothing secret leaves the process. Reads
 * the chain id, base fee and operation descriptions from the node; signs transfers and
 * operations `ch-tx-v4`; submits; waits for finality; subscribes to `/ws`; checks proven reads
 * against a pinned genesis.
 */
export class ChainClient {
  readonly http: Http;
  private readonly socketFactory: SocketFactory | undefined;
  private readonly reader: ProvenReader | undefined;
  private chainIdValue: Promise<string> | undefined;
  private operationsValue: Promise<ReadonlyMap<string, OperationMeta>> | undefined;
  private readonly nonces = new OperationNonces();
  /** Transfer nonces handed out here and maybe not yet visible as pending at the node. */
  private readonly lastTransferNonce = new Map<string, bigint>();

  constructor(options: ClientOptions) {
    this.http = new Http(options.url, options.fetch);
    const platform = (globalThis as { WebSocket?: new (url: string) => unknown }).WebSocket;
    this.socketFactory = options.socket ?? (platform ? (url) => new platform(url) as never : undefined);
    this.reader = options.genesisHash === undefined ? undefined : new ProvenReader(this.http, { genesisHash: options.genesisHash, ...(options.genesis !== undefined ? { genesis: options.genesis } : {}), ...(options.verify ? { verify: options.verify } : {}) });
  }

  /** The chain id v4 signatures name: `GET /api/v1/status` on a node, `/api/v1/network/status` on a gateway. */
  chainId(): Promise<string> {
    this.chainIdValue ??= (async () => {
      const r = await this.http.request('GET', '/api/v1/status');
      const body = r.status === 200 ? r.body : await this.http.get('/api/v1/network/status');
      if (!isObj(body) || typeof body['chain_id'] !== 'string') throw new SdkError('input', `${this.http.base} names no chain_id`);
      return body['chain_id'];
    })().catch((e: unknown) => {
      this.chainIdValue = undefined;
      throw e;
    });
    return this.chainIdValue;
  }

  async baseFee(): Promise<bigint> {
    const est = await this.http.get('/api/v1/gas/estimate');
    if (!isObj(est) || typeof est['base_fee'] !== 'number') throw new SdkError('input', 'GET /api/v1/gas/estimate answered no base_fee');
    return BigInt(est['base_fee']);
  }

  /** Every operation the node describes (sdk/operations.ts), read once. */
  operations(): Promise<ReadonlyMap<string, OperationMeta>> {
    this.operationsValue ??= fetchOperations(this.http).catch((e: unknown) => {
      this.operationsValue = undefined;
      throw e;
    });
    return this.operationsValue;
  }

  async account(address: string): Promise<Record<string, unknown>> {
    return (await this.http.get(`/api/v1/accounts/${encodeURIComponent(address)}`)) as Record<string, unknown>;
  }

  /** The next account nonce of `address`: the node's `next_nonce` (confirmed + pending + 1), or past what this client signed. */
  async nextNonce(address: string): Promise<bigint> {
    const acct = await this.account(address);
    const served = BigInt(acct['next_nonce'] as number);
    const local = this.lastTransferNonce.get(address);
    return local !== undefined && local >= served ? local + 1n : served;
  }

  /** Posts a signed `POST /api/v1/transactions` body. */
  async submit(body: Record<string, unknown>): Promise<Submitted> {
    return (await this.http.send('POST', '/api/v1/transactions', body)) as Submitted;
  }

  /** Signs a transfer `ch-tx-v4` with the next nonce and submits it. */
  async transfer(key: ChainKey, t: { readonly to: string; readonly value: Ucoin; readonly data?: string } & SendOptions): Promise<Submitted> {
    const [chainId, gasPrice, nonce] = await Promise.all([this.chainId(), t.gasPrice ?? this.baseFee(), this.nextNonce(key.address)]);
    this.lastTransferNonce.set(key.address, nonce);
    const body = signTransfer(key, { chainId, to: t.to, value: t.value, nonce, gasPrice, ...(t.data !== undefined ? { data: t.data } : {}), ...(t.gasLimit !== undefined ? { gasLimit: t.gasLimit } : {}) });
    try {
      return await this.submit(body);
    } catch (e) {
      // Refused: the nonce was not taken; the next transfer asks the node again.
      if (this.lastTransferNonce.get(key.address) === nonce) this.lastTransferNonce.delete(key.address);
      throw e;
    }
  }

  /**
   * Signs any operation the node describes (`stake`, `delegate`, `grant_session`, a new plugin's)
   * `ch-tx-v4` and submits it to its route. `body` is the operation's own fields; the actor field
   * defaults to the key's address, the nonce is a fresh millisecond timestamp.
   */
  async operation(key: ChainKey, type: string, body: Readonly<Record<string, unknown>>, options: SendOptions = {}): Promise<Submitted> {
    const meta = (await this.operations()).get(type);
    if (!meta) throw new SdkError('operation', `the node describes no operation ${JSON.stringify(type)}`);
    const [chainId, gasPrice] = await Promise.all([this.chainId(), options.gasPrice ?? this.baseFee()]);
    const filled = body[meta.actorField] === undefined ? { [meta.actorField]: key.address, ...body } : { ...body };
    const signed = signOperation(key, {
      chainId,
      type,
      target: targetOf(meta, filled),
      body: filled,
      gasPrice,
      nonce: this.nonces.next(),
      actorField: meta.actorField,
      valueField: meta.valueField,
      ...(options.gasLimit !== undefined ? { gasLimit: options.gasLimit } : {}),
    });
    return (await this.http.send(meta.method, pathOf(meta, filled), signed)) as Submitted;
  }

  /** `GET /api/v1/transactions/:hash`; undefined while the node does not know it. */
  async transaction(hash: string): Promise<Record<string, unknown> | undefined> {
    const r = await this.http.request('GET', `/api/v1/transactions/${encodeURIComponent(hash)}`);
    if (r.status === 404) return undefined;
    if (r.status !== 200 || !isObj(r.body)) throw new ChainHttpError('GET', `/api/v1/transactions/${hash}`, r.status, r.body);
    return r.body;
  }

  /**
   * Resolves with the transaction once it is final: `status` `confirmed` or `failed` (BFT
   * finality: no fork to wait out, part 1 Consensus 1). Rejects with an SdkError after `timeoutMs`.
   */
  async waitFinal(hash: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<Record<string, unknown>> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    const interval = options.intervalMs ?? 200;
    for (;;) {
      const tx = await this.transaction(hash);
      if (tx && (tx['status'] === 'confirmed' || tx['status'] === 'failed')) return tx;
      if (Date.now() >= deadline) throw new SdkError('timeout', `${hash} is ${tx ? String(tx['status']) : 'unknown to the node'} after ${options.timeoutMs ?? 60_000} ms`);
      await new Promise((r) => setTimeout(r, interval));
    }
  }

  /** Events and balance pushes from the gateway's `/ws`, reconnecting with growing delay. */
  subscribe(options: SubscribeOptions): Subscription {
    if (!this.socketFactory) throw new SdkError('socket', 'no WebSocket on this platform: pass `socket` to the client');
    return new Subscription(`${this.http.base.replace(/^http/, 'ws')}/ws`, this.socketFactory, options);
  }

  /** Proven reads (decisions.md §84–85) against the pinned genesis; needs `genesisHash`. */
  get proven(): ProvenReader {
    if (!this.reader) throw new SdkError('input', 'proven reads need the genesisHash the client pins');
    return this.reader;
  }

  /** `GET /api/v1/accounts/:address?prove=true`, checked. */
  provenAccount(address: string): Promise<ProvenAnswer> {
    return this.proven.account(address);
  }
}
