import type { Logger } from 'pino';
import type { ProtocolParams } from './protocol-params.js';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest, ChainError, formatCoin, isAddress, ML_DSA65_PUBLIC_KEY_BYTES, parseHex } from '../../kernel/sdk.js';
import { FaucetIgnoredFields, FaucetRequestSchema } from '../faucet/public.js';
import type { EventBus } from './event-bus.js';
import type { FaucetCooldown } from './faucet-cooldown.js';
import { isObject, type NodeAnswer, type NodeClient } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import type { ShardRouter } from './shard-router.js';

/** Base gas of part 1 "Amounts", for a `tx` notice while the node's estimate cannot be read. */
const GAS_TRANSFER = 21;
const GAS_CONTRACT_CALL = 50;
const GAS_ESTIMATE_PATH = '/api/v1/gas/estimate';
/** Part 1: a deploy is a transaction to this address. */
export const DEPLOY_TARGET = 'chain:system.deploy';
/** decisions.md §17: a deploy's transaction `type`, its key in the estimate's `operations`. */
const DEPLOY_TYPE = 'deploy';

/** What a forwarded operation's `tx` notice needs of it (operation-routes.ts). */
export interface AnnouncedOperation {
  readonly name: string;
  readonly valueField: string | null;
  readonly gas: number;
  signsFor(body: Record<string, unknown>): string | undefined;
}

/** The kind of a submission whose gas the `tx` notice carries, as the node's estimate names it. */
type GasKind = { readonly kind: 'transfer' } | { readonly kind: 'contract' } | { readonly kind: 'deploy' } | { readonly kind: 'operation'; readonly name: string; readonly declared: number };

/** A plain transaction's kind by its recipient, as the node dispatches it: a contract (`.app`), a deploy, else a transfer. */
function plainKind(to: string): GasKind {
  if (to === DEPLOY_TARGET) return { kind: 'deploy' };
  return to.endsWith('.app') ? { kind: 'contract' } : { kind: 'transfer' };
}

/**
 * The two writes the gateway forwards itself (transactions and faucet calls). Both go to a node of
 * the shard that owns the sender / credited address. A forwarded transaction is announced on the
 * socket at once (`tx`); a faucet credit when its block applies it (`faucet`, block-events.ts).
 * The gateway checks nothing the node checks: bodies are passed through as sent (a REST body's
 * own text), so a bad request gets the node's own message.
 */
export class Submissions {
  constructor(
    private readonly client: NodeClient,
    private readonly router: ShardRouter,
    private readonly reads: NodeReads,
    private readonly events: EventBus,
    private readonly cooldown: FaucetCooldown,
    private readonly faucetAmount: bigint,
    private readonly log: Logger,
    private readonly params?: ProtocolParams,
  ) {}

  /** `sentText`: the client's JSON text of `body` where there is one (REST), forwarded as sent. */
  async transaction(body: unknown, sentText?: string): Promise<NodeAnswer> {
    const from = isObject(body) && typeof body.from === 'string' ? body.from : undefined;
    const nodes = from !== undefined ? this.router.nodesFor(from) : this.router.nodesOfShard(0);
    const answer = await this.client.request(nodes, 'POST', '/api/v1/transactions', body, sentText);
    if (answer.status < 200 || answer.status >= 300 || !isObject(answer.body) || !isObject(body)) return answer;
    const res = answer.body;
    const to = typeof body.to === 'string' ? body.to : '';
    if (from !== undefined) this.reads.forgetAccount(from);
    if (to) this.reads.forgetAccount(to);
    const hash = res.tx_hash ?? res.hash;
    await this.announce({ hash, from, to, value: body.value, kind: plainKind(to), body, res });
    // The node flags an accepted-but-anomalous transaction with sentinel_* fields (part 1, scoring).
    if (res.sentinel_score !== undefined || res.sentinel_category !== undefined || res.sentinel_warning !== undefined) {
      this.events.emit('tx_anomaly', { tx_hash: hash, score: res.sentinel_score ?? null, category: res.sentinel_category ?? null, warning: res.sentinel_warning ?? null });
    }
    return answer;
  }

  /**
   * The `tx` notice of a forwarded operation the node admitted (decisions.md §16: it travels as a
   * transaction from its actor to its Signs-for address, moving its signed value). `body`: the
   * client's body with the route's path parameters.
   */
  async announceOperation(op: AnnouncedOperation, actor: string | undefined, body: Record<string, unknown>, answer: NodeAnswer): Promise<void> {
    if (answer.status < 200 || answer.status >= 300 || !isObject(answer.body)) return;
    const res = answer.body;
    if (actor !== undefined) this.reads.forgetAccount(actor);
    const value = op.valueField !== null && body[op.valueField] !== undefined ? body[op.valueField] : 0;
    await this.announce({ hash: res.tx_hash ?? res.hash, from: actor, to: op.signsFor(body) ?? null, value, kind: { kind: 'operation', name: op.name, declared: op.gas }, body, res });
  }

  /** Part 2's `tx` event: a submission notice, sent once the node admitted what the gateway forwarded. */
  private async announce(t: { hash: unknown; from: string | undefined; to: string | null; value: unknown; kind: GasKind; body: Record<string, unknown>; res: Record<string, unknown> }): Promise<void> {
    this.events.emit('tx', {
      hash: t.hash,
      from: t.from,
      to: t.to,
      value: t.value,
      gas: await this.estimatedGas(t.kind),
      gas_price: await this.effectiveGasPrice(t.body, t.res),
      shard: t.from !== undefined ? this.router.shardOf(t.from) : 0,
      timestamp: Date.now(),
      block: t.res.estimated_block ?? null,
      status: t.res.status ?? 'pending',
    });
  }

  /**
   * The gas the node's estimate gives a kind of submission (cached per height): `gas_base_transfer`,
   * `gas_contract_call`, or the operation's entry of `operations` (decisions.md §18; a deploy's is
   * `deploy`, a contract call's gas where the node lists none). While the estimate cannot be read,
   * part 1's base gas or the gas the build declares for the operation.
   */
  private async estimatedGas(k: GasKind): Promise<number> {
    const estimate = await this.reads.get(GAS_ESTIMATE_PATH).catch(() => undefined);
    const e = estimate?.status === 200 && isObject(estimate.body) ? estimate.body : {};
    const ops = isObject(e.operations) ? e.operations : {};
    const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
    switch (k.kind) {
      case 'transfer':
        return num(e.gas_base_transfer) ?? GAS_TRANSFER;
      case 'contract':
        return num(e.gas_contract_call) ?? GAS_CONTRACT_CALL;
      case 'deploy':
        return num(ops[DEPLOY_TYPE]) ?? num(e.gas_contract_call) ?? GAS_CONTRACT_CALL;
      case 'operation':
        return num(ops[k.name]) ?? k.declared;
    }
  }

  /**
   * The gas price a forwarded transaction pays: the sender's, or base_fee when omitted
   * (decisions.md §9). The node's answer names it; a node that does not is covered by the
   * protocol parameters the gateway re-reads (PROTOCOL_PARAMS_REFRESH_MS), else by the base_fee
   * of the gas estimate it serves (cached per height).
   */
  private async effectiveGasPrice(body: Record<string, unknown>, res: Record<string, unknown>): Promise<unknown> {
    if (res.gas_price !== undefined) return res.gas_price;
    if (body.gas_price !== undefined) return body.gas_price;
    const known = this.params?.value('base_fee');
    if (known !== undefined) return Number(known);
    const estimate = await this.reads.get(GAS_ESTIMATE_PATH).catch(() => undefined);
    return estimate?.status === 200 && isObject(estimate.body) && estimate.body.base_fee !== undefined ? estimate.body.base_fee : null;
  }

  /**
   * `ip` is the requester (REST client or socket peer): the cooldown is per address and per IP.
   * The amount is checked against FAUCET_AMOUNT before the cooldown is taken, so a refused amount
   * costs nothing.
   */
  async faucet(request: unknown, ip: string): Promise<NodeAnswer> {
    const body = this.cappedFaucetBody(request);
    const address = isObject(body) && typeof body.address === 'string' ? body.address : undefined;
    // A body the node refuses for its shape is forwarded without taking the cooldown, so its 400
    // (part 2: failed validation) is what the client hears, cooldown or not; no credit can follow.
    if (address === undefined || !wellFormedFaucetBody(body)) return this.client.request(address === undefined ? this.router.nodesOfShard(0) : this.router.nodesFor(address), 'POST', '/api/v1/faucet', body);
    const keys = [`address:${address}`, `ip:${ip}`];
    const decision = await this.cooldown.acquire(keys);
    if (!decision.ok) {
      throw new ChainError(429, `faucet cooldown: this address or IP was served recently; try again in ${decision.retryAfterSecs} s`, 'FAUCET_COOLDOWN_SECS applies per address and per IP', { retry_after: decision.retryAfterSecs });
    }
    let answer: NodeAnswer;
    try {
      answer = await this.client.request(this.router.nodesFor(address), 'POST', '/api/v1/faucet', body);
    } catch (e) {
      await this.cooldown.release(keys);
      throw e;
    }
    if (answer.status < 200 || answer.status >= 300 || !isObject(answer.body)) {
      await this.cooldown.release(keys);
      return answer;
    }
    this.reads.forgetAccount(address);
    // No `faucet` event here: the node only queued the credit. The event comes from the block that
    // applies it (block-events.ts), so a credit that fails there is never announced.
    this.log.debug({ address }, 'faucet call forwarded');
    return answer;
  }

  /**
   * Part 2 makes FAUCET_AMOUNT the amount per request: a larger ask is refused here, and a request
   * naming none asks the node for exactly FAUCET_AMOUNT (whatever the node's own default). The
   * parsed body is what goes on, never the client's text, so the node reads the amount that was
   * checked even if that text repeats the key.
   */
  private cappedFaucetBody(body: unknown): unknown {
    if (!isObject(body)) return body;
    if (body.amount === undefined) return { ...body, amount: Number(this.faucetAmount) };
    const asked = askedAmount(body.amount);
    if (asked !== undefined && asked > this.faucetAmount) {
      throw badRequest(`faucet amount ${asked} ucoin is above this gateway's limit of ${this.faucetAmount} ucoin (${formatCoin(this.faucetAmount)}, FAUCET_AMOUNT)`, 'ask for at most FAUCET_AMOUNT, or leave amount out to receive it');
    }
    return body;
  }
}

/**
 * Whether the node could take a faucet body, by its shape alone (the faucet's request schema, a
 * chain address, an ML-DSA-65 public key in hex of either case, which the node lowercases): false
 * only for a body the node is certain to refuse, so that nothing it would credit skips the
 * cooldown. The node judges the rest (the shard, the key's binding) and answers its own message.
 */
function wellFormedFaucetBody(body: unknown): boolean {
  if (!isObject(body) || !Value.Check(FaucetBody, body)) return false;
  const key = typeof body.public_key === 'string' ? body.public_key : '';
  return isAddress(String(body.address)) && parseHex(key, ML_DSA65_PUBLIC_KEY_BYTES) !== null;
}

/** The faucet's request as the node declares it, with the signed-write fields it ignores. */
const FaucetBody = Type.Composite([FaucetRequestSchema, FaucetIgnoredFields], { additionalProperties: false });

/**
 * The amount a faucet body names, as a whole number of ucoin (a fraction rounded up, so 20000000.5
 * counts as above a 20000000 cap); undefined for a shape the node refuses by itself. Digit strings
 * count, so the cap holds even against a node that would read them as numbers.
 */
function askedAmount(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.ceil(v));
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) return BigInt(v.trim());
  return undefined;
}
