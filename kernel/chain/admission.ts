import { readAheadKeys } from './read-ahead.js';
import { badRequest, ChainError, unavailable } from '../errors.js';
import type { NetworkEnv } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import type { PluginHost } from '../host/host.js';
import type { ParamRegistry } from '../state/params.js';
import { accountsReader, type AccountRecord } from '../state/accounts.js';
import type { StateSource } from '../state/overlay.js';
import type { ChainMeta, ChainStore } from '../store/chain-store.js';
import { addressKind, isSystemAddress } from '../crypto/address.js';
import type { SignatureVerifier } from '../crypto/verifier.js';
import { Mempool, MempoolFullError } from '../mempool/mempool.js';
import { parseSubmission } from '../tx/submission.js';
import { signatureCacheId, verifyTransferSignature } from '../tx/signature.js';
import { effectiveGasPrice } from '../tx/signing.js';
import { txIdentity, txIdentityOfText, type TxIdentity } from '../tx/hash.js';
import { nestingProblem } from '../codec/depth.js';
import { formatCoin } from '../codec/amount.js';
import type { Authorized } from '../auth/authorize.js';
import { authorizeTx, declaredDebit } from './authorize-tx.js';
import { presentedKey } from '../auth/presented-key.js';
import { lastOperationNonce } from '../auth/nonce.js';
import { OP_FIELD, type OperationRegistry, type ParsedOperation } from '../ops/registry.js';
import { DEFERRED, verifyOperationSignatures, verifyWithState, type OperationSignaturePolicy } from '../ops/signature.js';
import { admissionContext, readContext, type ContextEnv } from './contexts.js';
import { GAS_TRANSFER } from './kernel-params.js';
import { CROSS_SHARD_TARGET, foreignRecipientError, foreignSenderError, type ShardView } from '../crypto/shard.js';
import { recipientProblem, senderProblem } from './recipient.js';
import { declaredGasLimit, gasLimitBelowBase } from '../tx/gas-limit.js';
import { OPERATION_TARGET_PREFIX, operationOf, type BalanceHold, type SignatureLayout, type Tx } from '../model/types.js';

export interface AdmissionDeps {
  readonly store: ChainStore;
  readonly hooks: Hooks;
  readonly host: PluginHost<unknown>;
  readonly params: ParamRegistry;
  readonly verifier: SignatureVerifier;
  readonly env: NetworkEnv;
  /** Names the network in `ch-tx-v4` signatures (decisions.md §94). */
  readonly chainId: string;
  /** `CHAIN_REQUIRE_TX_V3`: strong (`ch-tx-v4`) signatures required for all but a bare plain transfer. */
  readonly requireTxV3: boolean;
  /** The shard this node serves (`CHAIN_SHARD_ID`, 0 unsharded): a plugin with a `shardParam` is served by one shard only. */
  readonly shard: number;
  /** What this shard owns (decisions.md §71): a sender of another shard is refused (§73). */
  readonly shards: ShardView;
  readonly mempool: Mempool;
  readonly operations: OperationRegistry;
  head(): Readonly<ChainMeta>;
}

export interface SubmissionResult {
  tx_hash: string;
  status: 'pending';
  estimated_block: number;
  sender_balance: bigint;
  sender_balance_human: string;
  /** Null for a transfer to another shard (decisions.md §74). */
  receiver_balance: bigint | null;
  receiver_balance_human: string | null;
  /** The price admission charged for: the sender's, or base_fee when omitted (decisions.md §9). */
  gas_price: bigint;
  /** Fields plugins added in checkTx (the sentinel's score, a hold). */
  [field: string]: unknown;
}

/** decisions.md §17: the answer to an admitted operation. */
export interface OperationSubmission {
  success: true;
  status: 'pending';
  tx_hash: string;
  estimated_block: number;
  [field: string]: unknown;
}

/** What ProcessProposal learns of a transaction in someone's block: why it may not be there, or the layout its signature verified under. */
export type IncludedCheck = { readonly problem: string } | { readonly problem: null; readonly layout: SignatureLayout | undefined };

/** Dispatch key of transfers to an address kind a plugin claims (`.app` calls, `.vault` deposits). */
export function kindTarget(kind: string): string {
  return `kind:${kind}`;
}

/**
 * CheckTx: everything a node checks before it queues a transaction, in the order a client is
 * answered: shape, who may sign and the signature (decisions.md §16; an outsider's key is refused
 * before any verification is bought), then the nonce, the recipient and the balance. Admission is
 * a courtesy to the client: the block re-checks every rule that decides state (executor.ts),
 * because a proposer may skip this.
 */
export class Admission {
  /**
   * What the bodies seen cost before they run (`OperationSpec.bodyGas`, `SystemAddressSpec.dataGas`),
   * by body: gasOf asks it at admission, packing, validation and execution of one body, and a
   * deploy's bytes are parsed to price them.
   */
  private readonly bodyGasByBody = new WeakMap<object, number>();
  /** One admission at a time per sender, so consecutive nonces sent together are not refused. */
  private readonly admitting = new Map<string, Promise<unknown>>();

  constructor(private readonly d: AdmissionDeps) {}

  private get height(): number {
    return this.d.head().height + 1;
  }

  /**
   * The `type` a transaction shows (decisions.md §17) and `?type=` matches, from its dispatch key:
   * an operation's name; a transfer, to another shard too (§74), `transfer`; a plain transaction to
   * a system address or a claimed address kind, the `txType` its plugin declares; a system
   * transaction, its type.
   */
  typeOf = (target: string): string => {
    const op = operationOf({ target });
    if (op !== undefined) return op;
    if (target === CROSS_SHARD_TARGET) return 'transfer';
    if (target.startsWith('kind:')) return this.d.host.addressKind(target.slice(5))?.txType ?? target;
    return this.d.host.systemAddress(target)?.txType ?? target;
  };

  /** Gas a transaction is charged before its handler reports more: 21 for a transfer, an operation's base gas and what its body's size costs (`bodyGas`) or an address's declared gas, 0 for system transactions. */
  gasOf = (tx: Pick<Tx, 'origin' | 'target'> & Partial<Pick<Tx, 'body'>>): number => {
    if (tx.origin === 'system') return this.d.host.systemTransactionGas(tx.target);
    if (tx.target === 'transfer' || tx.target === CROSS_SHARD_TARGET) return GAS_TRANSFER;
    const op = operationOf(tx);
    if (op !== undefined) {
      const spec = this.d.operations.get(op)?.spec;
      // Without a body (a stored transaction's fields, whose receipt carries the gas charged): the base.
      if (spec === undefined) return GAS_TRANSFER;
      const priced = spec.bodyGas;
      return spec.gas + (tx.body === undefined || priced === undefined ? 0 : this.bodyGas(tx.body, `operation "${spec.name}": bodyGas`, () => priced(tx.body!)));
    }
    if (tx.target.startsWith('kind:')) return this.d.host.addressKind(tx.target.slice(5))?.gas ?? GAS_TRANSFER;
    const system = this.d.host.systemAddress(tx.target);
    if (system === undefined) return GAS_TRANSFER;
    const priced = system.dataGas;
    if (tx.body === undefined || priced === undefined) return system.gas;
    const data = tx.body.data;
    return system.gas + this.bodyGas(tx.body, `system address ${system.address}: dataGas`, () => priced(typeof data === 'string' ? data : undefined));
  };

  /** A body's own gas, priced once per body and checked: a plugin's count must be a non-negative safe integer. */
  private bodyGas(body: object, what: string, price: () => number): number {
    let gas = this.bodyGasByBody.get(body);
    if (gas === undefined) {
      gas = price();
      if (!Number.isSafeInteger(gas) || gas < 0) throw new Error(`${what} returned ${String(gas)}, not a non-negative safe integer`);
      this.bodyGasByBody.set(body, gas);
    }
    return gas;
  }

  /** The most gas a transaction may use, and what blocks are packed and bounded by: its declared gas_limit, else its base gas. */
  gasLimitOf = (tx: Pick<Tx, 'origin' | 'target' | 'body'>): number => declaredGasLimit(tx) ?? this.gasOf(tx);

  /**
   * Why a transaction's limit can never apply: a declared gas_limit below its base gas, or a limit
   * (declared, else its gas, which a body's size may raise: `bodyGas`) above what a block may hold.
   */
  private async gasLimitProblem(tx: Tx, declared: number | undefined, state: StateSource): Promise<ChainError | undefined> {
    const below = declared === undefined ? undefined : gasLimitBelowBase(declared, this.gasOf(tx));
    if (below !== undefined) return badRequest(below);
    const max = await this.d.params.reader(state).get('max_block_gas');
    const limit = declared ?? this.gasOf(tx);
    if (BigInt(limit) <= max) return undefined;
    return badRequest(`${declared === undefined ? 'its gas' : 'gas_limit'} ${limit} exceeds max_block_gas ${max}: no block could include the transaction`);
  }

  /** Where a plain transaction to `to` dispatches: a system address, an address kind a plugin claims, or the kernel's transfer. */
  targetOf(to: string, data: string | undefined): string {
    // decisions.md §74: a transfer to an address another shard owns is the cross-shard plugin's (a lock), when one is
    // enabled; without one, admission refuses it and a block that carries it anyway fails it with nothing charged.
    if (!this.d.shards.owns(to) && this.d.host.crossShard()) return CROSS_SHARD_TARGET;
    if (isSystemAddress(to)) {
      if (!this.d.host.systemAddress(to)) throw badRequest(`${to} is not served on this network (its plugin is not enabled)`);
      return to;
    }
    const kind = addressKind(to);
    if (kind !== null && this.d.host.addressKind(kind)) return kindTarget(kind);
    if (kind === 'app' || (data !== undefined && data.length > 0 && kind !== 'human' && kind !== 'node')) {
      throw badRequest(`${to}: contract calls are not enabled on this network (no contracts plugin)`);
    }
    return 'transfer';
  }

  /** The plugin that serves a target, when one does; its state decides whether the target is open. */
  private pluginOf(target: string): string | undefined {
    const op = operationOf({ target });
    if (op !== undefined) return this.d.operations.get(op)?.plugin;
    if (target === CROSS_SHARD_TARGET) return this.d.host.crossShard()?.plugin;
    if (target.startsWith('kind:')) return this.d.host.addressKind(target.slice(5))?.plugin;
    return this.d.host.systemAddress(target)?.plugin;
  }

  /** 403 naming the plugin and its state when the plugin serving `target` is not active at `height` (decisions.md §37). */
  inactiveProblem(target: string, height: number): ChainError | undefined {
    const plugin = this.pluginOf(target);
    return plugin === undefined ? undefined : this.d.host.inactiveProblem(plugin, height);
  }

  /**
   * 403 naming the parameter when the plugin serving `target` keeps its records on one shard
   * (`PluginDefinition.shardParam`, the assets plugin's `dex_shard`) and this node serves another.
   * Asked at admission only: the shard a node serves is its configuration, not state, so a block
   * whose outcome depended on it would split validators configured differently (until shards bind
   * their id to their genesis, issue 38).
   */
  async shardProblem(target: string, state: StateSource): Promise<ChainError | undefined> {
    const plugin = this.pluginOf(target);
    const param = plugin === undefined ? undefined : this.d.host.shardParamOf(plugin);
    if (param === undefined) return undefined;
    const home = await this.d.params.reader(state).get(param);
    if (home === BigInt(this.d.shard)) return undefined;
    return new ChainError(403, `${plugin}: its operations are served by shard ${home} (the parameter ${param}); this node serves shard ${this.d.shard}`, 'send it through the gateway, which routes it to that shard');
  }

  /** Serialises admissions per sender (or actor): a burst of consecutive nonces is checked in order. */
  private serialised<T>(key: unknown, run: () => Promise<T>): Promise<T> {
    if (typeof key !== 'string') return run();
    const prev = this.admitting.get(key) ?? Promise.resolve();
    const next = prev.then(run, run);
    const settled = next.catch(() => undefined);
    this.admitting.set(key, settled);
    void settled.then(() => {
      if (this.admitting.get(key) === settled) this.admitting.delete(key);
    });
    return next;
  }

  /**
   * A plain transaction (`POST /api/v1/transactions`). `text` is the JSON `rawBody` was parsed
   * from, when there was one: if it is already canonical it becomes the transaction's canonical
   * text as it is.
   */
  admitTransfer(rawBody: unknown, receivedAt: number, text: string | undefined, queue: (tx: Tx) => void): Promise<SubmissionResult> {
    const tooDeep = nestingProblem(text, rawBody);
    if (tooDeep) return Promise.reject(badRequest(tooDeep));
    const from = (rawBody as { from?: unknown } | null)?.from;
    return this.serialised(from, () => this.admitTransferNow(rawBody, receivedAt, text, queue));
  }

  private async admitTransferNow(rawBody: unknown, receivedAt: number, text: string | undefined, queue: (tx: Tx) => void): Promise<SubmissionResult> {
    // 1. Shape.
    const f = parseSubmission(rawBody);
    // decisions.md §73: right after the shape, before signatures: the sender's shard executes it.
    if (!this.d.shards.owns(f.from)) throw foreignSenderError(this.d.shards, 'from', f.from);
    const crossShard = this.d.shards.owns(f.to) ? undefined : this.d.host.crossShard();
    if (!this.d.shards.owns(f.to) && crossShard === undefined) throw foreignRecipientError(this.d.shards, f.to);
    const { canonical, hash } = txIdentityOfText(text, f.body);
    if (this.d.mempool.has(hash)) throw badRequest(`duplicate transaction ${hash}`);
    const state = this.d.store.state;
    const height = this.height;
    const baseFee = await this.d.params.reader(state).get('base_fee');
    const gasPrice = f.gas_price ?? baseFee;
    if (gasPrice < baseFee) throw badRequest(`gas_price ${gasPrice} is below base_fee ${baseFee}`, 'omit gas_price to pay base_fee');
    const target = this.targetOf(f.to, f.data);
    // Built once and completed in place once the signature verifies: admission runs for every
    // transaction, and a second copy of the record was a measurable share of what it allocated.
    const tx: { -readonly [K in keyof Tx]: Tx[K] } = { hash, origin: 'signed', target, from: f.from, to: f.to, value: f.value, nonce: f.nonce, gasPrice, data: f.data, body: f.body, canonical, sigVersion: undefined, receivedAt };
    // Asked without a declared limit too: a deploy's data prices its gas (`SystemAddressSpec.dataGas`),
    // and one above max_block_gas could never be in a block, its sender's later nonces stuck behind it.
    // A plain transfer (21 gas) is below any block's limit: the parameter read stays off its path.
    if (f.gas_limit !== undefined || this.gasOf(tx) !== GAS_TRANSFER) {
      const limitProblem = await this.gasLimitProblem(tx, f.gas_limit, state);
      if (limitProblem) throw limitProblem;
    }
    // A name or an address that pays out only its own way sends no plain transaction (decisions.md §39, §43).
    const notASender = await senderProblem(this.d.hooks, () => readContext(this.ctxEnv, state, height), f.from, (kind) => this.d.host.addressKind(kind)?.sendRefusal);
    if (notASender) throw notASender;
    // 2. Who may sign: an outsider is told 401 before anything about the account (balance, nonce).
    const key = presentedKey(f.body, f.public_key);
    // The sender's own records (its account and bound key, the plugins' records of it as sender:
    // whom a sponsor pays for, which authorization reads) in one LevelDB call, which the reads
    // below join. The sender's only: a refused submission then reads at most one record more
    // than before (the sentinel's, read after the signature), never one of an address it names.
    this.d.store.prefetchState(readAheadKeys([{ from: f.from }], this.d.host.boundary.readAheadStores)).catch(() => undefined);
    const authorized = await this.authorizeAt(state, height, tx, key, undefined);
    // 3. The signature, once per node, on the verify pool; what it covers sets the price (§95).
    // Before anything about the account (decisions.md §16: key binding and signature, then the
    // nonce): a forged transfer is 401 whatever its nonce or the sender's balance.
    tx.sigVersion = await verifyTransferSignature({ ...f, hash }, this.signaturePolicy(baseFee), key.bytes, this.d.verifier);
    tx.gasPrice = effectiveGasPrice(f.gas_price, tx.sigVersion, baseFee);
    // 4. The account nonce.
    const accounts = accountsReader(state);
    const sender = await accounts.get(f.from);
    const expected = this.d.mempool.nextNonce(f.from, sender.nonce);
    // A committed transaction's nonce is taken, so only a stale nonce needs the store lookup
    // that tells a resubmission from a new transaction (it stays off the hot path).
    if (f.nonce <= sender.nonce && (await this.d.store.hasTx(hash))) throw badRequest(`duplicate transaction ${hash}`);
    if (f.nonce !== expected) throw badRequest(`nonce ${f.nonce} is not the next nonce for ${f.from}: expected ${expected} (last confirmed ${sender.nonce} plus pending)`);
    // 5. Where it goes: the serving plugin is active, the recipient can be owned.
    const inactive = this.inactiveProblem(target, height);
    if (inactive) throw inactive;
    if (crossShard !== undefined) {
      // decisions.md §74: the rules of a cross-shard transfer, in the words of the rule breached.
      const problem = crossShard.admit(f, this.d.shards);
      if (problem) throw problem;
    } else if (target === 'transfer' || target.startsWith('kind:')) {
      const problem = await recipientProblem(this.d.hooks, () => readContext(this.ctxEnv, state, height), state, f.to);
      if (problem) throw problem;
    }
    // 6. Funds: value from the sender, the fee from whoever pays it.
    await this.checkFunds(state, tx, tx.from, authorized.signer.payer, tx.value, sender);
    tx.holds = this.holdsOf(tx, tx.from, authorized.signer.payer, tx.value);
    tx.declaredDebit = tx.value;
    tx.signerKind = authorized.signer.kind;
    // 7. Every plugin's checkTx, which may add fields to the answer.
    const fields = await this.runCheckTx(tx, height);
    // 8. The nonce again, on the state committed now: steps 3–7 waited (the verify pool, a
    // deploy's metering), and a block may have committed meanwhile carrying this transaction
    // (relayed here while this copy was checked) or another of its nonce. Queued, it would head
    // the sender's queue with a nonce the chain has taken, and a block proposed from this pool
    // would carry it again: peers without such a copy refuse that block, and where enough
    // validators hold one (a deploy's relayed copies all wait seconds on metering) it commits,
    // and the transaction's confirmed receipt is overwritten by a failed one ("nonce … is not
    // the next nonce").
    const now = await accountsReader(this.d.store.state).get(f.from);
    if (f.nonce <= now.nonce) throw (await this.d.store.hasTx(hash)) ? badRequest(`duplicate transaction ${hash}`) : badRequest(`nonce ${f.nonce} is not the next nonce for ${f.from}: a block took it while this transaction was being checked (last confirmed ${now.nonce})`);
    queue(tx);
    // decisions.md §74: the recipient's balance is another shard's to tell.
    if (crossShard !== undefined) return { ...fields, ...crossShard.answer(f, this.d.shards), tx_hash: hash, status: 'pending', estimated_block: height, ...balances(sender.balance, null), gas_price: tx.gasPrice };
    const receiver = await accounts.get(f.to);
    return { ...fields, tx_hash: hash, status: 'pending', estimated_block: height, ...balances(sender.balance, receiver.balance), gas_price: tx.gasPrice };
  }

  /**
   * A signed operation (decisions.md §16), from its route, its socket method or a peer: body
   * shape, the plugin's state, who may sign and the signature, the actor's millisecond nonce,
   * the owning plugin's own checks, funds, every plugin's checkTx, the mempool.
   */
  admitOperation(envelope: Record<string, unknown>, receivedAt: number, text: string | undefined, queue: (tx: Tx) => void): Promise<OperationSubmission> {
    const tooDeep = nestingProblem(text, envelope);
    if (tooDeep) return Promise.reject(badRequest(tooDeep));
    let actor: string | undefined;
    try {
      actor = this.d.operations.parse(envelope).actor;
    } catch {
      actor = undefined; // admitted alone, and refused with the parse error below
    }
    return this.serialised(actor, () => this.admitOperationNow(envelope, receivedAt, text, queue));
  }

  private async admitOperationNow(envelope: Record<string, unknown>, receivedAt: number, text: string | undefined, queue: (tx: Tx) => void): Promise<OperationSubmission> {
    const state = this.d.store.state;
    const height = this.height;
    const baseFee = await this.d.params.reader(state).get('base_fee');
    // 1. Shape, and the plugin that owns the operation is active.
    const p = this.d.operations.parse(envelope);
    // decisions.md §71, §73: an operation is applied on its actor's shard; refused before signatures.
    if (!this.d.shards.owns(p.actor)) throw foreignSenderError(this.d.shards, 'actor', p.actor);
    const identity = txIdentityOfText(text, envelope);
    const tx = this.operationTx(p, envelope, identity, baseFee, receivedAt);
    if (this.d.mempool.has(tx.hash) || (await this.d.store.hasTx(tx.hash))) throw badRequest(`duplicate transaction ${tx.hash}`);
    const inactive = this.d.host.inactiveProblem(p.op.plugin, height);
    if (inactive) throw inactive;
    const elsewhere = await this.shardProblem(tx.target, state);
    if (elsewhere) throw elsewhere;
    if (tx.gasPrice < baseFee) throw badRequest(`gas_price ${tx.gasPrice} is below base_fee ${baseFee}`, 'omit gas_price to pay base_fee');
    const limitProblem = await this.gasLimitProblem(tx, p.gasLimit, state);
    if (limitProblem) throw limitProblem;
    // 2. Who may sign, then the signature(s), over the body with any field it may leave out filled (§90).
    const key = presentedKey(envelope, p.publicKey);
    const authorized = await this.authorizeAt(state, height, tx, key, p);
    const ctx = this.d.host.scoped(readContext(this.ctxEnv, state, height), p.op.plugin);
    const verified = await verifyWithState(p, tx.hash, key.bytes, this.signaturePolicy(baseFee), this.d.verifier, ctx);
    if (verified instanceof ChainError) throw verified;
    // 3. The actor's millisecond nonce, above the last accepted and every pending one.
    const pending = this.d.mempool.pendingOperationsOf(p.actor);
    const last = pending.length > 0 ? pending[pending.length - 1]!.nonce : await lastOperationNonce(state, p.actor);
    if (p.nonce <= last) throw badRequest(`nonce ${p.nonce} is not above ${last}, the last nonce accepted from ${p.actor}: operation nonces are millisecond timestamps that only increase`);
    // 4. The owning plugin's own rules, then funds (decisions.md §16: the plugin's checks come
    // before the mempool, whose holds the funds are judged against): a signer without the role an
    // operation needs is told 403 whether or not it could pay (§31). What the operation declares
    // it takes (by default its signed value when that counts ucoin; `debits`: a name's price, a
    // node's min_stake, an NFT transfer fee) must be there besides the fee and what the account's
    // pending transactions hold (§38: price + fee), and stays held while it is pending; an
    // operation that declares its debit may judge it in its own words (what the coins are for) in
    // its check. A vault payout declares a debit of 0: the vault pays it (§43), so only its fee is held.
    const input = { name: p.op.spec.name, body: verified.body, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce, txHash: tx.hash, signer: authorized.signer };
    const broken = p.op.spec.check ? await p.op.spec.check(ctx, input as never) : undefined;
    if (broken) throw broken;
    const takes = await declaredDebit(p, () => ctx);
    await this.checkFunds(state, tx, authorized.signer.account, authorized.signer.payer, takes);
    // Node-local work at admission (metering code off-chain) last: only a submission that can pay buys it.
    const refused = p.op.spec.admit ? await p.op.spec.admit(ctx, input as never) : undefined;
    if (refused) throw refused;
    // The moves out of the signer it declares, for checkTx to judge as a plain transfer's (the sentinel, decisions.md §99).
    // As the block shows moves (kernel/chain/value-moves.ts): none of nothing, none back to the account it leaves.
    const payments = p.op.spec.pays ? (await p.op.spec.pays(ctx, input as never)).filter((m) => m.value > 0n && m.to !== (m.from ?? p.actor)) : [];
    const priced: Tx = { ...tx, sigVersion: verified.layout, gasPrice: effectiveGasPrice(p.gasPrice, verified.layout, baseFee) };
    const admitted: Tx = { ...priced, holds: this.holdsOf(priced, authorized.signer.account, authorized.signer.payer, takes), declaredDebit: takes, signerKind: authorized.signer.kind, ...(payments.length > 0 ? { payments } : {}) };
    const fields = await this.runCheckTx(admitted, height);
    // The nonce again, on the state committed now (as step 8 of a transfer): a block may have
    // taken this operation, or a later one of its actor, while it was being checked.
    const lastNow = await lastOperationNonce(this.d.store.state, p.actor);
    if (p.nonce <= lastNow) throw (await this.d.store.hasTx(tx.hash)) ? badRequest(`duplicate transaction ${tx.hash}`) : badRequest(`nonce ${p.nonce} is not above ${lastNow}, the last nonce accepted from ${p.actor}: a block took it while this operation was being checked`);
    queue(admitted);
    return { ...fields, success: true, status: 'pending', tx_hash: tx.hash, estimated_block: height };
  }

  /** The transaction an operation travels as: `to` is its Signs-for address, `from` its actor (§16). */
  private operationTx(p: ParsedOperation, body: Record<string, unknown>, identity: TxIdentity, baseFee: bigint, receivedAt: number): Tx {
    return { hash: identity.hash, origin: 'signed', target: OPERATION_TARGET_PREFIX + p.op.spec.name, from: p.actor, to: p.target, value: p.coinValue, nonce: p.nonce, gasPrice: p.gasPrice ?? baseFee, data: undefined, body, canonical: identity.canonical, sigVersion: undefined, receivedAt };
  }

  private get ctxEnv(): ContextEnv {
    return { env: this.d.env, params: this.d.params, boundary: this.d.host.boundary, hooks: this.d.hooks, shards: this.d.shards };
  }

  /** What signatures must be on this network at `baseFee` (decisions.md §94–95). */
  signaturePolicy(baseFee: bigint): OperationSignaturePolicy {
    return { env: this.d.env, chainId: this.d.chainId, baseFee, requireStrong: this.d.requireTxV3 };
  }

  /** Authorization against committed state (kernel/auth); the block asks again against its own. */
  private async authorizeAt(state: StateSource, height: number, tx: Tx, key: ReturnType<typeof presentedKey>, p: ParsedOperation | undefined): Promise<Authorized> {
    const answer = await authorizeTx(this.d.hooks, (ctx, plugin) => this.d.host.scoped(ctx, plugin), () => readContext(this.ctxEnv, state, height), state, tx, key, p, this.gasLimitOf(tx), () => this.pendingDebitOf(tx.from, key.hex));
    if (answer instanceof ChainError) throw answer;
    return answer;
  }

  /** What `actor`'s pending transactions signed by `keyHex` declared they debit (SignRequest.pendingDebit). */
  private pendingDebitOf(actor: string, keyHex: string): bigint {
    let total = 0n;
    for (const pending of [this.d.mempool.pendingOf(actor), this.d.mempool.pendingOperationsOf(actor)]) {
      for (const t of pending) {
        const signer = t.body.public_key;
        // presentedKey is remembered per body (admission made it): no 3.9 KB lower-casing per pending transaction.
        if (t.declaredDebit !== undefined && typeof signer === 'string' && presentedKey(t.body, signer).hex === keyHex) total += t.declaredDebit;
      }
    }
    return total;
  }


  /**
   * Funds for what the transaction takes and its fee: `value` from `valueFrom` (a transfer's
   * sender; an operation's signing account, the owner for a record address, its declared debit),
   * the fee of the whole gas limit from `payer` (the block takes it before the handler runs), each
   * net of what the account's pending transactions hold. `known`: `valueFrom`'s account, when read
   * already.
   */
  private async checkFunds(state: StateSource, tx: Tx, valueFrom: string, payer: string, value: bigint, known?: AccountRecord): Promise<void> {
    const accounts = accountsReader(state);
    const fee = BigInt(this.gasLimitOf(tx)) * tx.gasPrice;
    if (payer === valueFrom) {
      const sender = known ?? (await accounts.get(valueFrom));
      const pending = this.d.mempool.pendingSpend(valueFrom, this.gasLimitOf);
      const cost = value + fee;
      if (sender.balance < pending + cost) throw badRequest(`insufficient balance: ${valueFrom} has ${sender.balance} ucoin (${pending} reserved by pending transactions), needs ${cost}${value > 0n && tx.target !== 'transfer' ? ` (${value} the operation takes besides its fee of ${fee})` : ''}`);
      return;
    }
    const [sender, paying] = await Promise.all([known ?? accounts.get(valueFrom), accounts.get(payer)]);
    const pendingValue = this.d.mempool.pendingSpend(valueFrom, this.gasLimitOf);
    if (sender.balance < pendingValue + value) throw badRequest(`insufficient balance: ${valueFrom} has ${sender.balance} ucoin (${pendingValue} reserved by pending transactions), needs ${value}`);
    const pendingFee = this.d.mempool.pendingSpend(payer, this.gasLimitOf);
    if (paying.balance < pendingFee + fee) throw badRequest(`insufficient balance: the fee payer ${payer} has ${paying.balance} ucoin (${pendingFee} reserved by pending transactions), needs ${fee}`);
  }

  /** What the mempool holds for an admitted transaction (`Tx.holds`): `value` of `valueFrom`, the fee of its gas limit of `payer`. */
  private holdsOf(tx: Tx, valueFrom: string, payer: string, value: bigint): BalanceHold[] {
    const fee = BigInt(this.gasLimitOf(tx)) * tx.gasPrice;
    return payer === valueFrom ? [{ account: valueFrom, amount: value + fee }] : [{ account: valueFrom, amount: value }, { account: payer, amount: fee }];
  }

  /** A transaction a plugin creates (a faucet credit); plugins validate it in checkTx. */
  async admitSystem(target: string, from: string, to: string, value: bigint, body: Record<string, unknown>, receivedAt: number, queue: (tx: Tx) => void): Promise<Tx> {
    // from/to/value are part of the hashed body, so a peer can never pair a body with other fields.
    const tx = this.rebuildTx('system', { ...body, type: target, from, to, value: Number(value) }, 0n, receivedAt);
    if (this.d.mempool.has(tx.hash) || (await this.d.store.hasTx(tx.hash))) throw badRequest(`duplicate transaction ${tx.hash}`);
    await this.runCheckTx(tx, this.height);
    // Asked again after the plugins' checks, as for a peer's copy: several relayers post the same
    // bundle (decisions.md §77), and a copy that committed meanwhile must not stay in the pool.
    if (await this.d.store.hasTx(tx.hash)) throw badRequest(`duplicate transaction ${tx.hash}`);
    queue(tx);
    return tx;
  }

  /** A transaction relayed by a peer (`text` parsed to `body`): the same admission as a local submission. */
  async admitFromPeer(origin: 'signed' | 'system', body: Record<string, unknown>, receivedAt: number, text: string | undefined, queue: (tx: Tx) => void): Promise<void> {
    if (origin === 'signed') {
      if (OP_FIELD in body) await this.admitOperation(body, receivedAt, text, queue);
      else await this.admitTransfer(body, receivedAt, text, queue);
      return;
    }
    const tooDeep = nestingProblem(text, body);
    if (tooDeep) throw badRequest(tooDeep);
    const tx = this.rebuildTx('system', body, 0n, receivedAt, txIdentityOfText(text, body));
    if (this.d.mempool.has(tx.hash) || (await this.d.store.hasTx(tx.hash))) return;
    await this.runCheckTx(tx, this.height);
    // Asked again after the plugins' checks: a block may have committed it meanwhile, and a
    // system transaction has no nonce to stop a second inclusion from applying it twice.
    if (await this.d.store.hasTx(tx.hash)) return;
    queue(tx);
  }

  /**
   * Rebuilds a transaction from its hashed body alone (for blocks received from peers): every
   * field that execution reads is derived from the bytes the hash and signature cover.
   */
  rebuildTx(origin: 'signed' | 'system', body: Record<string, unknown>, baseFee: bigint, receivedAt: number, given?: TxIdentity): Tx {
    // Before anything recursive (the canonical encoder, schema checks) walks the body: a block
    // carrying a too-deeply nested transaction is as malformed as one carrying unparseable text.
    const tooDeep = nestingProblem(given?.canonical, body);
    if (tooDeep) throw badRequest(tooDeep);
    const identity = given ?? txIdentity(body);
    const { hash, canonical } = identity;
    if (origin === 'signed') {
      if (OP_FIELD in body) return this.operationTx(this.d.operations.parse(body), body, identity, baseFee, receivedAt);
      const f = parseSubmission(body);
      return { hash, origin, target: this.targetOf(f.to, f.data), from: f.from, to: f.to, value: f.value, nonce: f.nonce, gasPrice: f.gas_price ?? baseFee, data: f.data, body: f.body, canonical, sigVersion: undefined, receivedAt };
    }
    const { type, from, to, value } = body;
    if (typeof type !== 'string' || typeof from !== 'string' || typeof to !== 'string' || typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw badRequest('malformed system transaction: type, from, to and value are required');
    }
    return { hash, origin, target: type, from, to, value: BigInt(value), nonce: 0n, gasPrice: 0n, data: undefined, body, canonical, sigVersion: undefined, receivedAt };
  }

  /**
   * Why an unsigned system transaction of `type` may not apply at `height`: only a type a plugin
   * declares (`systemTransactions`) is one, and only while that plugin is active. Asked at
   * admission, when validating a block and again when executing it.
   */
  systemTxProblem(type: string, height: number): ChainError | undefined {
    const plugin = this.d.host.systemTransactionPlugin(type);
    if (plugin === undefined || !this.d.hooks.executeTx.get(type)?.isUsed()) return badRequest(`${type} is not a system transaction type of this network`);
    return this.d.host.inactiveProblem(plugin, height);
  }

  /** Every plugin's checkTx on committed state; returns the fields they add to the answer. */
  async runCheckTx(tx: Tx, height: number): Promise<Record<string, unknown>> {
    const fields: Record<string, unknown> = {};
    const ctx = admissionContext(this.ctxEnv, this.d.store.state, height, (f) => Object.assign(fields, f));
    const rejection = await this.d.hooks.checkTx.promise(ctx, tx);
    if (rejection) throw rejection;
    if (tx.origin === 'system') {
      const problem = this.systemTxProblem(tx.target, height);
      if (problem) throw problem;
    }
    return fields;
  }

  /**
   * A transaction inside a proposal (ProcessProposal): its signature verified once (cache), a
   * system transaction checked by plugins. Answers the layout the signature verified under, which
   * sets the price the block charges (decisions.md §95). Who may sign is the block's question,
   * asked when it executes, because an earlier transaction of the same block may change it; so is
   * an own-layout signature over fields filled from state (`deferred`, priced as own).
   */
  async checkIncluded(tx: Tx, baseFee: bigint): Promise<IncludedCheck> {
    const pending = this.d.mempool.get(tx.hash);
    if (pending && pending.origin === tx.origin) {
      // Admitted here already: plugins checked it then, and a signed one's signature is in the
      // verify-once cache under the id admission used (a recall is counted as a cache hit). The
      // id carries the price a v3/v4 signature covers: one over an older base fee is not taken
      // for one over the block's.
      if (pending.origin === 'system') return { problem: null, layout: undefined };
      const price = typeof tx.body.gas_price === 'number' ? BigInt(tx.body.gas_price) : baseFee;
      if (pending.sigVersion && operationOf(pending) === undefined && this.d.verifier.recall(signatureCacheId(pending.hash, pending.sigVersion, price))) return { problem: null, layout: pending.sigVersion };
    }
    try {
      if (tx.origin === 'signed') {
        if (OP_FIELD in tx.body) {
          const p = this.d.operations.parse(tx.body);
          const layout = await verifyOperationSignatures(p, tx.hash, presentedKey(tx.body, p.publicKey).bytes, this.signaturePolicy(baseFee), this.d.verifier);
          return { problem: null, layout: layout === DEFERRED ? 'own' : layout };
        }
        const f = parseSubmission(tx.body);
        return { problem: null, layout: await verifyTransferSignature({ ...f, hash: tx.hash }, this.signaturePolicy(baseFee), presentedKey(tx.body, f.public_key).bytes, this.d.verifier) };
      }
      await this.runCheckTx(tx, this.height);
      return { problem: null, layout: undefined };
    } catch (e) {
      return { problem: `transaction ${tx.hash} is invalid: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
}

/** The mempool's refusal when full is a 503 to the client. */
export function queueInto(mempool: Mempool, onQueued: (tx: Tx) => void): (tx: Tx) => void {
  return (tx) => {
    try {
      mempool.add(tx);
    } catch (e) {
      if (e instanceof MempoolFullError) throw unavailable(e.message);
      throw e;
    }
    onQueued(tx);
  };
}

/** An operation's `bodyGas` of a body, held to its contract: a plugin that breaks it is a bug to surface, never a price to guess. */
/** The submission's balances with the `*_human` text beside each (decisions.md §21). */
function balances(sender: bigint, receiver: bigint | null): Pick<SubmissionResult, 'sender_balance' | 'sender_balance_human' | 'receiver_balance' | 'receiver_balance_human'> {
  return { sender_balance: sender, sender_balance_human: formatCoin(sender), receiver_balance: receiver, receiver_balance_human: receiver === null ? null : formatCoin(receiver) };
}
