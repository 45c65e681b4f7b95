import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import { badRequest, ChainError, FailedWithGas, NodeFault, isChainError } from '../errors.js';
import type { EndBlockResult, ValidatorUpdate } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import { StateOverlay, type StateSource } from '../state/overlay.js';
import type { ParamRegistry } from '../state/params.js';
import { paramStateKey } from '../state/params.js';
import { bigintCodec } from '../state/record-codec.js';
import { accountsReader, accountsWriter, type AccountsWriter } from '../state/accounts.js';
import type { NetworkEnv, ReadContext, TransferIntent } from '../context/contexts.js';
import { ValueMoves } from './value-moves.js';
import { readContext, txContext, writeContext, type WriteOutputs } from './contexts.js';
import type { PluginBoundary } from '../host/plugin-boundary.js';
import { operationOf, type BlockEvent, type BlockHeader, type BlockInfo, type ChainEvent, type Evidence, type Receipt, type Tx } from '../model/types.js';
import { BlockEventLog, type EventSink } from './block-events.js';
import { IndexStage, type IndexWrite } from '../state/index-stage.js';
import { ownerOf } from '../auth/authorize.js';
import { authorizeTx, declaredDebit } from './authorize-tx.js';
import { CROSS_SHARD_TARGET, foreignRecipientError, foreignSenderError, type ShardView } from '../crypto/shard.js';
import { presentedKey } from '../auth/presented-key.js';
import type { Signer, SignerGrant } from '../context/signer.js';
import { lastOperationNonce, recordOperationNonce } from '../auth/nonce.js';
import type { OperationRegistry, ParsedOperation } from '../ops/registry.js';
import type { MethodDirectory } from '../host/method-calls.js';
import { readValidatorSet } from '../state/validator-set.js';
import { writeLightClientValset } from '../state/light-client-valset.js';
import { SET_CHANGE_DELAY, writeValidatorUpdates } from '../state/validator-history.js';
import { EVIDENCE_WINDOW_PARAM } from './evidence-window.js';
import { resultingSetProblem, validatorUpdateProblem } from './validator-update-rules.js';
import { changeSchedule, type PluginScheduleChange } from '../context/schedule.js';
import { readSchedule, writeSchedule } from '../host/schedule-state.js';
import { payeeOf, recipientProblem, senderProblem } from './recipient.js';
import { utf8Bytes } from '../codec/utf8.js';
import { declaredGasLimit, gasLimitBelowBase } from '../tx/gas-limit.js';
import { isPricedKey, readStoragePrice, storageFeeOf, type StoragePrice } from './state-growth.js';

export interface ExecutionResult {
  readonly overlay: StateOverlay;
  readonly receipts: Receipt[];
  readonly events: readonly BlockEvent[];
  /** Plugins' node-local index writes (outside the state root), for the block's batch. */
  readonly indexWrites: readonly IndexWrite[];
  readonly gasUsed: number;
  readonly feesBurned: bigint;
  readonly endBlock: EndBlockResult;
  /** The block changed the plugin schedule: the host reloads it after commit. */
  readonly scheduleChanged: boolean;
}

/** Transactions executed between two yields to the event loop. */
const YIELD_EVERY_TXS = 32;

/** Also the env of every context the block's execution makes (chain/contexts.ts), so none is built per transaction. */
export interface ExecutorDeps {
  readonly hooks: Hooks;
  readonly params: ParamRegistry;
  readonly env: NetworkEnv;
  /** The shard of the chain (decisions.md §71): a sender another shard owns fails here too (§73). */
  readonly shards: ShardView;
  readonly log: Logger;
  readonly gasOf: (tx: Tx) => number;
  readonly operations: OperationRegistry;
  /** 403 naming the plugin when the plugin serving a target is not active at the height. */
  readonly inactiveProblem: (target: string, height: number) => ChainError | undefined;
  /** Why a plain transaction from an address of this kind is refused (`AddressKindSpec.sendRefusal`), if it is. */
  readonly sendRefusal?: (kind: string) => string | undefined;
  /** A context re-scoped to a plugin's namespace (host/scoping.ts). */
  readonly scoped: <C>(ctx: C, plugin: string) => C;
  /** What converted plugins declared: their contexts are held to it (host/plugin-boundary.ts). */
  readonly boundary?: PluginBoundary;
  /** Why an unsigned system transaction of this type may not apply at the height (Admission.systemTxProblem). */
  readonly systemTxProblem: (type: string, height: number) => ChainError | undefined;
  /** The methods plugins offer one another (the host's): write contexts check write calls against it. */
  readonly methods: MethodDirectory;
  /**
   * An operation whose own layout covers fields filled from state (`signing.resolve`): fills them
   * from `ctx` and checks the signature over the result; answers the filled body, or why not.
   */
  readonly verifyWithState: (p: ParsedOperation, tx: Tx, publicKey: Uint8Array, ctx: ReadContext, baseFee: bigint) => Promise<Record<string, unknown> | ChainError>;
}

/**
 * Runs a block deterministically on an overlay of committed state (ABCI++ FinalizeBlock):
 * beginBlock, every transaction, endBlock. Inputs are the block and state only: no clock, no
 * randomness, no unordered iteration. A transaction's fee and nonce are applied on the block
 * overlay; its effect runs on a child overlay that is merged only if the handler succeeds.
 */
export async function executeBlock(deps: ExecutorDeps, base: StateSource, header: BlockHeader, txs: readonly Tx[], evidence: readonly Evidence[] = []): Promise<ExecutionResult> {
  const overlay = new StateOverlay(base);
  const events = new BlockEventLog(header.height);
  const index = new IndexStage();
  const block: BlockInfo = { chainId: header.chain_id, height: header.height, round: header.round, timestamp: header.timestamp, proposer: header.proposer };
  let feesBurned = 0n;
  // What plugins burn outside transactions (beginBlock, evidence, endBlock): part of the block's fees_burned.
  const burned = (amount: bigint): void => {
    feesBurned += amount;
  };
  await deps.hooks.beginBlock.promise(writeContext(deps, overlay, block, { emit: events.sink('begin_block'), index, blockEvents: () => events.events, burned }));
  const baseFee = header.base_fee;
  // Parameters change only in endBlock, from the next block on: one read serves every transaction.
  const storagePrice = await readStoragePrice(deps.params.reader(overlay));
  const receipts: Receipt[] = [];
  let gasUsed = 0;
  // One writer per overlay, not one per use: each is a handful of closures, and a transfer used five.
  const blockAccounts = accountsWriter(overlay);
  for (let i = 0; i < txs.length; i++) {
    // With state cached, a block runs entirely in microtasks and would hold the event loop for
    // its whole length; yielding now and then lets timers, votes and RPC in. The overlay is
    // private to this run and committed state only changes at commit, so results are the same.
    if (i > 0 && i % YIELD_EVERY_TXS === 0) await yieldToLoop();
    const tx = txs[i]!;
    const r = await executeTx(deps, overlay, blockAccounts, block, baseFee, storagePrice, tx);
    gasUsed += r.gas;
    feesBurned += r.burned + r.unusedFee + r.storageFee + r.pluginBurned;
    if (r.error === null) {
      events.add('tx', tx.hash, r.events);
      index.absorb(r.indexWrites);
    }
    receipts.push({ tx_hash: tx.hash, status: r.error === null ? 'confirmed' : 'failed', gas: r.gas, fee: r.fee, fee_burned: r.burned, ...(r.unusedFee > 0n ? { unused_gas_fee: r.unusedFee } : {}), ...(r.storageFee > 0n ? { storage_fee: r.storageFee } : {}), error: r.error, block: header.height, index: i });
  }
  for (const ev of evidence) {
    // Each offence applies once: the id is recorded in state, and validation refuses a block
    // that carries an id already applied.
    const key = evidenceStateKey(ev.hash);
    if ((await overlay.get(key)) !== undefined) continue;
    overlay.set(key, utf8Bytes(String(header.height)));
    const emit = events.sink('evidence');
    // The reporter is the block's proposer (decisions.md §24): it put the evidence in.
    emit({ type: 'evidence', data: { hash: ev.hash, validator: ev.validator, height: ev.height, round: ev.round, reporter: block.proposer } });
    await deps.hooks.evidence.promise(writeContext(deps, overlay, block, { emit, index, blockEvents: () => events.events, burned }), { ...ev, reporter: block.proposer });
  }
  const initial: EndBlockResult = { validatorUpdates: [], paramUpdates: [], pluginUpdates: [] };
  const endEvents = events.sink('end_block');
  const endBlock = await deps.hooks.endBlock.promise(initial, writeContext(deps, overlay, block, { emit: endEvents, index, blockEvents: () => events.events, burned }));
  await applyValidatorUpdates(deps, overlay, block, endBlock.validatorUpdates, endEvents);
  for (const [key, value] of endBlock.paramUpdates) {
    const problem = deps.params.checkValue(key, value);
    if (problem) {
      // Part 2, Errors §5: an out-of-range change is refused and the old value stays.
      endEvents({ type: 'param_change_refused', data: { key, value: value.toString(), reason: problem } });
      continue;
    }
    overlay.set(paramStateKey(key), bigintCodec.encode(value));
    endEvents({ type: 'param_changed', data: { key, value: value.toString() } });
  }
  const scheduleChanged = await applyScheduleChanges(overlay, block, endBlock.pluginUpdates ?? [], endEvents);
  return { overlay, receipts, events: events.events, indexWrites: index.staged, gasUsed, feesBurned, endBlock, scheduleChanged };
}

/**
 * Validator updates from endBlock are checked before they touch the set, as CometBFT checks
 * ABCI's: each update well formed, and the resulting set non-empty and bounded. A batch with any
 * bad update is refused whole (applying part of it could leave a set nobody intended), the set
 * stays as it was, and the refusal is logged and emitted as an event, identically on every node.
 */
async function applyValidatorUpdates(deps: ExecutorDeps, overlay: StateOverlay, block: BlockInfo, updates: readonly ValidatorUpdate[], emit: EventSink): Promise<void> {
  if (updates.length === 0) return;
  const problem = validatorUpdateProblem(updates) ?? resultingSetProblem(await readValidatorSet(overlay), updates);
  if (problem) {
    deps.log.error({ height: block.height, reason: problem, updates: updates.length }, 'validator updates refused: the set stays as it was');
    emit({ type: 'validator_update_refused', data: { height: block.height, reason: problem } });
    return;
  }
  await writeValidatorUpdates(overlay, block.height, updates, await deps.params.reader(overlay).get(EVIDENCE_WINDOW_PARAM));
  await writeLightClientValset(overlay);
  emit({ type: 'validator_update', data: { height: block.height, effective_height: block.height + SET_CHANGE_DELAY, validators: updates.map((u) => ({ address: u.address, power: u.power.toString() })) } });
}

async function applyScheduleChanges(overlay: StateOverlay, block: BlockInfo, changes: readonly PluginScheduleChange[], emit: EventSink): Promise<boolean> {
  if (changes.length === 0) return false;
  let entries = (await readSchedule(overlay)) ?? [];
  let changed = false;
  for (const c of changes) {
    const next = changeSchedule(entries, c, block.height);
    if (typeof next === 'string') {
      emit({ type: 'plugin_schedule_refused', data: { plugin: c.name, change: c.change, height: c.height, reason: next } });
      continue;
    }
    entries = next;
    changed = true;
    emit({ type: 'plugin_scheduled', data: { plugin: c.name, change: c.change, height: c.height } });
  }
  if (changed) writeSchedule(overlay, entries);
  return changed;
}

export function evidenceStateKey(hash: string): string {
  return `kernel/evidence/${hash}`;
}

interface TxRun {
  gas: number;
  fee: bigint;
  burned: bigint;
  /** Burned for the gas limit a transaction declared and did not use (settleGas). */
  unusedFee: bigint;
  /** The storage fee burned for the state the transaction added (0 when it failed). */
  storageFee: bigint;
  /** What its handler burned (`ctx.burn`), counted only when it succeeded. */
  pluginBurned: bigint;
  error: string | null;
  /** What the transaction emitted and staged; kept by the block only when `error` is null. */
  events: readonly ChainEvent[];
  indexWrites: readonly IndexWrite[];
}

/** A transaction that failed before its effect has no output but its receipt: nothing allocated. */
const NONE: Pick<TxRun, 'events' | 'indexWrites'> = Object.freeze({ events: Object.freeze([]), indexWrites: Object.freeze([]) });
const NOTHING_CHARGED = { gas: 0, fee: 0n, burned: 0n, unusedFee: 0n, storageFee: 0n, pluginBurned: 0n, ...NONE } as const;

/**
 * One transaction in the block, every rule admission checked asked again on the block's state
 * (a proposer may have skipped admission): the price floor, who may sign, an own-layout signature
 * that needed state, the nonce, the gas limit, the fee, the serving plugin's state, the
 * recipient, the operation's own checks. A transaction whose signer may not sign, whose nonce is
 * taken, whose limit is below its base gas or whose payer cannot pay the fee of its limit fails
 * with nothing charged (charging the account would let a revoked key burn its coins); any later
 * failure keeps fee and nonce and rolls back the transaction's own writes. Gas: the base gas is
 * charged and shared out before the handler runs, the fee of the rest of the limit is held; once
 * the handler is done the gas it used beyond the base is charged from what was held and the
 * rest settled (settleGas). A handler that reports more than the limit fails out of gas and is
 * charged the whole limit.
 */
async function executeTx(deps: ExecutorDeps, overlay: StateOverlay, accounts: AccountsWriter, block: BlockInfo, baseFee: bigint, storagePrice: StoragePrice, tx: Tx): Promise<TxRun> {
  /** Gas charged: the base until the handler is done, then what it used. */
  let gas = 0;
  let limit = 0;
  let fee = 0n;
  let burned = 0n;
  let signer: Signer | undefined;
  let grant: SignerGrant | undefined;
  const op = operationOf(tx);
  let parsed = op === undefined || tx.origin !== 'signed' ? undefined : deps.operations.parse(tx.body);
  if (tx.origin === 'signed') {
    // Admission's price floor, asked again: a proposer could include a transaction priced below
    // the block's base fee, and its fee would not even cover what is burned. The floor applies to
    // the body's field even where the signature does not cover it (decisions.md §95).
    const floor = gasPriceFloorProblem(tx, baseFee);
    if (floor !== undefined) return { ...NOTHING_CHARGED, error: floor };
    // Admission's shard rule (decisions.md §73), asked again: a proposer may include a transaction
    // whose sender another shard owns; it has no account here to charge, so nothing is.
    if (!deps.shards.owns(tx.from)) return { ...NOTHING_CHARGED, error: foreignSenderError(deps.shards, 'sender', tx.from).message };
    // A transfer to another shard runs only as the cross-shard plugin's (decisions.md §74): its target says so on every validator alike.
    if (!deps.shards.owns(tx.to) && (tx.target !== CROSS_SHARD_TARGET || deps.hooks.executeTx.get(CROSS_SHARD_TARGET)?.isUsed() !== true)) return { ...NOTHING_CHARGED, error: foreignRecipientError(deps.shards, tx.to).message };
    if (tx.target === CROSS_SHARD_TARGET && deps.shards.owns(tx.to)) return { ...NOTHING_CHARGED, error: `to ${tx.to} belongs to this shard: not a cross-shard transfer` };
    gas = deps.gasOf(tx);
    const declared = declaredGasLimit(tx);
    const below = declared === undefined ? undefined : gasLimitBelowBase(declared, gas);
    if (below !== undefined) return { ...NOTHING_CHARGED, error: below };
    limit = declared ?? gas;
    if (parsed === undefined) {
      // A name, or an address that pays out only its own way, sends no plain transaction (decisions.md §39, §43).
      const notASender = await senderProblem(deps.hooks, () => readContext(deps, overlay, block.height), tx.from, (kind) => deps.sendRefusal?.(kind));
      if (notASender) return { ...NOTHING_CHARGED, error: notASender.message };
    }
    const key = presentedKey(tx.body, typeof tx.body.public_key === 'string' ? tx.body.public_key : '');
    const authorized = await authorizeTx(deps.hooks, deps.scoped, () => readContext(deps, overlay, block.height), overlay, tx, key, parsed, limit);
    if (authorized instanceof ChainError) return { ...NOTHING_CHARGED, error: authorized.message };
    ({ signer, grant } = authorized);
    if (parsed !== undefined && parsed.unresolved.length > 0) {
      // An own layout over fields filled from state (a vote's request id): its signature is
      // judged here, against the block's state; one that does not verify was never signed.
      const filled = await deps.verifyWithState(parsed, tx, key.bytes, deps.scoped(readContext(deps, overlay, block.height), parsed.op.plugin), baseFee);
      if (filled instanceof ChainError) return { ...NOTHING_CHARGED, error: filled.message };
      parsed = { ...parsed, body: filled };
    }
    const sender = await accounts.get(tx.from);
    if (parsed === undefined) {
      if (tx.nonce !== sender.nonce + 1n) return { ...NOTHING_CHARGED, error: `nonce ${tx.nonce} is not the next nonce for ${tx.from} (expected ${sender.nonce + 1n})` };
    } else {
      const last = await lastOperationNonce(overlay, tx.from);
      if (tx.nonce <= last) return { ...NOTHING_CHARGED, error: `nonce ${tx.nonce} is not above ${last}, the last nonce accepted from ${tx.from}` };
    }
    fee = BigInt(gas) * tx.gasPrice;
    // The fee of the whole limit is taken before the handler runs, so nothing the handler does
    // with the payer's coins can leave the gas it uses unpaid.
    const held = limit === gas ? fee : BigInt(limit) * tx.gasPrice;
    const payer = signer.payer === tx.from ? sender : await accounts.get(signer.payer);
    if (payer.balance < held) return { ...NOTHING_CHARGED, error: `insufficient balance for the fee: ${signer.payer} has ${payer.balance} ucoin, needs ${held}` };
    // Fee and nonce are consumed whatever the transaction's own outcome (part 1, states).
    if (parsed === undefined) {
      accounts.put(tx.from, { ...sender, balance: sender.balance - (signer.payer === tx.from ? held : 0n), nonce: tx.nonce, tx_count: sender.tx_count + 1 });
      if (signer.payer !== tx.from) await accounts.debit(signer.payer, held);
    } else {
      recordOperationNonce(overlay, tx.from, tx.nonce);
      await accounts.debit(signer.payer, held);
    }
    burned = BigInt(gas) * baseFee;
    if (fee > burned) await accounts.credit(await proposerPayee(deps, overlay, block), fee - burned);
  }
  const child = overlay.child();
  // Made when a handler runs: a plain transfer, the bulk of a block, allocates none.
  let txEvents: ChainEvent[] | undefined;
  let stage: IndexStage | undefined;
  let txBurned = 0n;
  const burnedHere = (amount: bigint): void => {
    txBurned += amount;
  };
  // Bytes the handlers declared sized by the protocol (ctx.protocolSizedBytes): not priced as growth.
  let protocolSized = 0n;
  const protocolSizedHere = (bytes: number): void => {
    protocolSized += BigInt(bytes);
  };
  const outputs = (): WriteOutputs => {
    const events: ChainEvent[] = (txEvents ??= []);
    return { emit: (ev) => void events.push(ev), index: (stage ??= new IndexStage()), burned: burnedHere, protocolSized: protocolSizedHere };
  };
  // Coins leaving the signing account through a handler: shown to beforeTransfer, counted for the grant.
  let moves: ValueMoves | undefined;
  if (signer !== undefined && tx.target !== 'transfer') {
    const s = signer;
    const ask = deps.hooks.beforeTransfer.isUsed() ? (intent: TransferIntent) => deps.hooks.beforeTransfer.promise(txContext(deps, child, block, outputs(), tx, limit, moves), intent) : undefined;
    moves = new ValueMoves(new Set([tx.from, s.account]), s, (to) => (parsed === undefined ? tx.to : to), ask);
  }
  let used = gas;
  let storageFee = 0n;
  let error: string | null = null;
  try {
    const inactive = deps.inactiveProblem(tx.target, block.height);
    if (inactive) throw inactive;
    let reported: number | undefined;
    let debited = 0n;
    if (parsed !== undefined) {
      reported = await runOperation(deps, child, block, outputs(), tx, limit, parsed, signer!, moves);
    } else if (tx.target === 'transfer') {
      await transfer(deps, child, block, outputs, tx, limit, signer!);
      debited = tx.value;
    } else {
      if (tx.origin === 'system') {
        const problem = deps.systemTxProblem(tx.target, block.height);
        if (problem) throw problem;
      }
      const hook = deps.hooks.executeTx.get(tx.target);
      if (!hook || !hook.isUsed()) throw new Error(`no handler for ${tx.target} on this network`);
      reported = (await hook.promise(txContext(deps, child, block, outputs(), tx, limit, moves), tx))?.gas;
    }
    // Checked here, inside the transaction, so a plugin's bad count fails its transaction rather
    // than the settlement below, which would fail the whole block on every validator.
    if (reported !== undefined && !Number.isSafeInteger(reported)) throw new Error(`the handler reported ${reported} gas, not a whole number`);
    // Handlers count from the base up (contracts, metered operations); a system transaction pays no gas.
    if (reported !== undefined && tx.origin === 'signed' && reported > gas) used = reported;
    if (used > limit) {
      error = `out of gas: the handler used ${used} gas, above the transaction's gas limit ${limit}`;
      used = limit;
    } else {
      // From the acting account, not a sponsor or vault paying its fee: their exposure is the fee they were checked for (decisions.md §95).
      if (tx.origin === 'signed') storageFee = await chargeStorage(child, storagePrice, protocolSized, signer!.account, used);
      // A session key's cap counts the storage fee with what else the operation took (decisions.md §95): it is not gas.
      if (grant?.onApplied) await grant.onApplied(deps.scoped(txContext(deps, child, block, outputs(), tx, limit), grant.plugin), { debited: debited + (moves?.debited ?? 0n) + storageFee });
      overlay.absorb(child);
    }
  } catch (err) {
    // Not the transaction's outcome but this node's: no receipt is written, the block stops.
    if (err instanceof NodeFault) throw err;
    storageFee = 0n;
    error = isChainError(err) || err instanceof Error ? err.message : String(err);
    if (!isChainError(err) && !(err instanceof FailedWithGas)) deps.log.debug({ tx: tx.hash, err }, 'transaction failed');
    // A handler that failed after metered work is charged what it used, within base and limit.
    used = err instanceof FailedWithGas && tx.origin === 'signed' && Number.isSafeInteger(err.gas) ? Math.min(Math.max(err.gas, gas), limit) : gas;
  }
  let unusedFee = 0n;
  if (tx.origin === 'signed' && (limit !== gas || used !== gas)) ({ gas, fee, burned, unusedFee } = await settleGas(accounts, () => proposerPayee(deps, overlay, block), signer!.payer, tx, baseFee, gas, limit, used));
  if (error !== null) return { gas, fee, burned, unusedFee, storageFee: 0n, pluginBurned: 0n, error, ...NONE };
  return { gas, fee, burned, unusedFee, storageFee, pluginBurned: txBurned, error: null, events: txEvents ?? NONE.events, indexWrites: stage?.staged ?? NONE.indexWrites };
}

/**
 * The storage fee of the state a transaction's handler added (chain/state-growth.ts), taken from
 * the acting account inside the transaction, so an account that cannot cover it fails the
 * transaction (charged the gas its handler used, nothing it wrote kept) instead of getting the
 * bytes free.
 */
async function chargeStorage(child: StateOverlay, price: StoragePrice, protocolSized: bigint, payer: string, used: number): Promise<bigint> {
  if (price.bytePrice === 0n) return 0n;
  const bytes = await child.growth(isPricedKey);
  const fee = storageFeeOf(bytes, price, protocolSized);
  if (fee === 0n) return 0n;
  const accounts = accountsWriter(child);
  const { balance } = await accounts.get(payer);
  const free = price.freeBytes + protocolSized;
  if (balance < fee) throw new FailedWithGas(`insufficient balance for the storage fee: the transaction stores ${bytes} new bytes of plugin state, ${bytes - free} beyond the ${free} free (storage_free_bytes ${price.freeBytes}${protocolSized > 0n ? `, ${protocolSized} sized by the protocol` : ''}), at ${price.bytePrice} ucoin each: ${fee} ucoin; ${payer} has ${balance}`, used);
  await accounts.debit(payer, fee);
  return fee;
}

/** The price floor of part 1 (Amounts 5) on the body's `gas_price`, which a v2 or own-layout signature does not cover but which must still not be below `base_fee`. */
function gasPriceFloorProblem(tx: Tx, baseFee: bigint): string | undefined {
  const declared = tx.body.gas_price;
  const price = typeof declared === 'number' && Number.isSafeInteger(declared) ? BigInt(declared) : tx.gasPrice;
  const lowest = price < tx.gasPrice ? price : tx.gasPrice;
  return lowest < baseFee ? `gas_price ${lowest} is below base_fee ${baseFee}` : undefined;
}

/**
 * After the handler: the proposer's share of the gas used beyond the base (the base's was paid
 * before the handler ran), and the limit the transaction did not use. Unused gas is not free
 * (docs/architecture.md, "Unused gas"): `base_fee` of every unused unit is burned, and only the
 * price above it goes back to the payer, so reserving block space with a large limit costs as
 * much as filling it would. `used` lies between the base and the limit: a failed handler used
 * the base, one out of gas the limit. The receipt's `gas` is `used`, its `fee` `used × price`
 * (part 1, Amounts 4), the reservation `unused_gas_fee`.
 */
async function settleGas(accounts: AccountsWriter, proposerPayee: () => Promise<string>, payer: string, tx: Tx, baseFee: bigint, base: number, limit: number, used: number): Promise<{ gas: number; fee: bigint; burned: bigint; unusedFee: bigint }> {
  const share = BigInt(used - base) * (tx.gasPrice - baseFee);
  if (share > 0n) await accounts.credit(await proposerPayee(), share);
  const unused = BigInt(limit - used);
  const refund = unused * (tx.gasPrice - baseFee);
  if (refund > 0n) await accounts.credit(payer, refund);
  return { gas: used, fee: BigInt(used) * tx.gasPrice, burned: BigInt(used) * baseFee, unusedFee: unused * baseFee };
}

/**
 * Who receives the proposer's share of fees: the owner of a `.node` proposer (decisions.md §30,
 * §37), asked once per block and remembered for its transactions.
 */
const payees = new WeakMap<BlockInfo, Promise<string>>();
function proposerPayee(deps: ExecutorDeps, overlay: StateOverlay, block: BlockInfo): Promise<string> {
  let payee = payees.get(block);
  if (payee === undefined) {
    payee = ownerOf(deps.hooks, () => readContext(deps, overlay, block.height), overlay, block.proposer).then((owner) => owner ?? block.proposer);
    payees.set(block, payee);
  }
  return payee;
}


/** The operation's own checks again, on the block's state, then its handler, with the owning plugin's context. */
async function runOperation(deps: ExecutorDeps, child: StateOverlay, block: BlockInfo, out: WriteOutputs, tx: Tx, gasLimit: number, p: ParsedOperation, signer: Signer, moves: ValueMoves | undefined): Promise<number | undefined> {
  const input = { name: p.op.spec.name, body: p.body, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce, txHash: tx.hash, signer };
  const ctx = deps.scoped(readContext(deps, child, block.height), p.op.plugin);
  if (p.op.spec.check) {
    const refused = await p.op.spec.check(ctx, input as never);
    if (refused) throw refused;
  }
  // Admission's funds rule again (the fee is paid by now): what the operation declares it takes
  // must be there, so two operations a proposer put in one block cannot together spend more than
  // the balance; the second fails here with only its fee taken.
  const takes = await declaredDebit(p, () => ctx);
  const { balance } = await accountsReader(child).get(signer.account);
  if (balance < takes) throw badRequest(`insufficient balance: ${p.op.spec.name} takes ${takes} ucoin besides its fee and ${signer.account} has ${balance}`);
  const result = await p.op.spec.execute(deps.scoped(txContext(deps, child, block, out, tx, gasLimit, moves), p.op.plugin), input as never);
  return result ? result.gas : undefined;
}

/**
 * The kernel's plain transfer: to a recipient someone can own, credited to the account it stands
 * for when it applies (a registered name's current owner, decisions.md §39), unless a plugin takes
 * it over first (holds).
 */
async function transfer(deps: ExecutorDeps, child: StateOverlay, block: BlockInfo, outputs: () => WriteOutputs, tx: Tx, gasLimit: number, signer: Signer): Promise<void> {
  const ctx = () => readContext(deps, child, block.height);
  const refused = await recipientProblem(deps.hooks, ctx, child, tx.to);
  if (refused) throw refused;
  const to = await payeeOf(deps.hooks, ctx, child, tx.to);
  if (deps.hooks.beforeTransfer.isUsed()) {
    const takenOver = await deps.hooks.beforeTransfer.promise(txContext(deps, child, block, outputs(), tx, gasLimit), { from: tx.from, to, recipient: tx.to, value: tx.value, signer, holdable: true });
    if (takenOver) return;
  }
  const childAccounts = accountsWriter(child);
  await childAccounts.debit(tx.from, tx.value);
  // The credit and the receiver's count in one read and one write (read after the debit, so
  // a transfer to oneself sees it).
  const receiver = await childAccounts.get(to);
  childAccounts.put(to, { ...receiver, balance: receiver.balance + tx.value, tx_count: receiver.tx_count + (to === tx.from ? 0 : 1) });
}
