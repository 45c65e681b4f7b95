import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isChainError } from '../errors.js';
import type { EndBlockResult, Hooks } from '../hooks.js';
import { StateOverlay, type StateSource } from '../state/overlay.js';
import type { ParamRegistry } from '../state/params.js';
import { paramStateKey } from '../state/params.js';
import { bigintCodec } from '../state/record-codec.js';
import { accountsWriter, type AccountsWriter } from '../state/accounts.js';
import type { NetworkEnv } from '../hooks.js';
import { txContext, writeContext } from './contexts.js';
import type { BlockEvent, BlockHeader, BlockInfo, ChainEvent, EvidenceItem, Receipt, Tx } from './types.js';
import { BlockEventLog } from './block-events.js';
import { IndexStage, type IndexWrite } from './index-stage.js';
import { writeValidator } from './validator-set.js';
import { recipientProblem } from './recipient.js';
import { utf8Bytes } from '../codec/utf8.js';

export interface ExecutionResult {
  readonly overlay: StateOverlay;
  readonly receipts: Receipt[];
  readonly events: readonly BlockEvent[];
  /** Plugins' node-local index writes (outside the state root), for the block's batch. */
  readonly indexWrites: readonly IndexWrite[];
  readonly gasUsed: number;
  readonly feesBurned: bigint;
  readonly endBlock: EndBlockResult;
}

/** Transactions executed between two yields to the event loop. */
const YIELD_EVERY_TXS = 32;

export interface ExecutorDeps {
  readonly hooks: Hooks;
  readonly params: ParamRegistry;
  readonly env: NetworkEnv;
  readonly log: Logger;
  readonly gasOf: (tx: Tx) => number;
}

/**
 * Runs a block deterministically on an overlay of committed state (ABCI++ FinalizeBlock):
 * beginBlock, every transaction, endBlock. Inputs are the block and state only: no clock, no
 * randomness, no unordered iteration. A transaction's fee and nonce are applied on the block
 * overlay; its effect runs on a child overlay that is merged only if the handler succeeds.
 */
export async function executeBlock(deps: ExecutorDeps, base: StateSource, header: BlockHeader, txs: readonly Tx[], evidence: readonly EvidenceItem[] = []): Promise<ExecutionResult> {
  const overlay = new StateOverlay(base);
  const events = new BlockEventLog(header.height);
  const index = new IndexStage();
  const block: BlockInfo = { chainId: header.chain_id, height: header.height, round: header.round, timestamp: header.timestamp, proposer: header.proposer };
  const e = { env: deps.env, params: deps.params };
  await deps.hooks.beginBlock.promise(writeContext(e, overlay, block, { emit: events.sink('begin_block'), index }));
  const baseFee = header.base_fee;
  const receipts: Receipt[] = [];
  let gasUsed = 0;
  let feesBurned = 0n;
  // One writer per overlay, not one per use: each is a handful of closures, and a transfer used five.
  const blockAccounts = accountsWriter(overlay);
  for (let i = 0; i < txs.length; i++) {
    // With state cached, a block runs entirely in microtasks and would hold the event loop for
    // its whole length; yielding now and then lets timers, votes and RPC in. The overlay is
    // private to this run and committed state only changes at commit, so results are the same.
    if (i > 0 && i % YIELD_EVERY_TXS === 0) await yieldToLoop();
    const tx = txs[i]!;
    const r = await executeTx(deps, overlay, blockAccounts, block, baseFee, tx);
    gasUsed += r.gas;
    feesBurned += r.burned;
    if (r.error === null) {
      events.add('tx', tx.hash, r.events);
      index.absorb(r.indexWrites);
    }
    receipts.push({ tx_hash: tx.hash, status: r.error === null ? 'confirmed' : 'failed', gas: r.gas, fee: r.fee, fee_burned: r.burned, error: r.error, block: header.height, index: i });
  }
  for (const ev of evidence) {
    // Each offence applies once: the id is recorded in state, and validation refuses a block
    // that carries an id already applied.
    const key = evidenceStateKey(ev.hash);
    if ((await overlay.get(key)) !== undefined) continue;
    overlay.set(key, utf8Bytes(String(header.height)));
    const emit = events.sink('evidence');
    emit({ type: 'evidence', data: { hash: ev.hash, validator: ev.validator, height: ev.height, round: ev.round } });
    await deps.hooks.evidence.promise(writeContext(e, overlay, block, { emit, index }), { kind: ev.kind, validator: ev.validator, height: ev.height, round: ev.round, hash: ev.hash, raw: ev.raw });
  }
  const initial: EndBlockResult = { validatorUpdates: [], paramUpdates: [] };
  const endEvents = events.sink('end_block');
  const endBlock = await deps.hooks.endBlock.promise(initial, writeContext(e, overlay, block, { emit: endEvents, index }));
  for (const u of endBlock.validatorUpdates) writeValidator(overlay, { address: u.address, public_key: u.public_key, power: u.power });
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
  return { overlay, receipts, events: events.events, indexWrites: index.staged, gasUsed, feesBurned, endBlock };
}

export function evidenceStateKey(hash: string): string {
  return `kernel/evidence/${hash}`;
}

interface TxRun {
  gas: number;
  fee: bigint;
  burned: bigint;
  error: string | null;
  /** What the transaction emitted and staged; kept by the block only when `error` is null. */
  events: readonly ChainEvent[];
  indexWrites: readonly IndexWrite[];
}

/** A transfer, or a transaction that failed, has no output but its receipt: nothing allocated. */
const NONE: Pick<TxRun, 'events' | 'indexWrites'> = Object.freeze({ events: Object.freeze([]), indexWrites: Object.freeze([]) });

async function executeTx(deps: ExecutorDeps, overlay: StateOverlay, accounts: AccountsWriter, block: BlockInfo, baseFee: bigint, tx: Tx): Promise<TxRun> {
  let gas = 0;
  let fee = 0n;
  let burned = 0n;
  if (tx.origin === 'signed') {
    const sender = await accounts.get(tx.from);
    if (tx.nonce !== sender.nonce + 1n) return { gas: 0, fee: 0n, burned: 0n, error: `nonce ${tx.nonce} is not the next nonce for ${tx.from} (expected ${sender.nonce + 1n})`, ...NONE };
    gas = deps.gasOf(tx);
    fee = BigInt(gas) * tx.gasPrice;
    if (sender.balance < fee) return { gas: 0, fee: 0n, burned: 0n, error: 'insufficient balance for the fee', ...NONE };
    // Fee and nonce are consumed whatever the transaction's own outcome (part 1, states).
    accounts.put(tx.from, { ...sender, balance: sender.balance - fee, nonce: tx.nonce, tx_count: sender.tx_count + 1 });
    burned = BigInt(gas) * baseFee;
    if (fee > burned) await accounts.credit(block.proposer, fee - burned);
  }
  const child = overlay.child();
  let out = NONE;
  try {
    if (tx.target === 'transfer') {
      const refused = await recipientProblem(child, tx.to);
      if (refused) throw refused;
      const childAccounts = accountsWriter(child);
      await childAccounts.debit(tx.from, tx.value);
      // The credit and the receiver's count in one read and one write (read after the debit, so
      // a transfer to oneself sees it).
      const receiver = await childAccounts.get(tx.to);
      childAccounts.put(tx.to, { ...receiver, balance: receiver.balance + tx.value, tx_count: receiver.tx_count + (tx.to === tx.from ? 0 : 1) });
    } else {
      const hook = deps.hooks.executeTx.get(tx.target);
      if (!hook || !hook.isUsed()) throw new Error(`no handler for ${tx.target} on this network`);
      const events: ChainEvent[] = [];
      const index = new IndexStage();
      out = { events, indexWrites: index.staged };
      const outcome = await hook.promise(txContext({ env: deps.env, params: deps.params }, child, block, { emit: (ev) => void events.push(ev), index }, tx), tx);
      if (outcome?.gas !== undefined && tx.origin === 'signed' && outcome.gas > gas) {
        // Handlers may report more gas than the base (contracts); the extra is charged now.
        const extra = BigInt(outcome.gas - gas) * tx.gasPrice;
        await accountsWriter(child).debit(tx.from, extra);
        fee += extra;
        burned += BigInt(outcome.gas - gas) * baseFee;
        gas = outcome.gas;
      }
    }
    overlay.absorb(child);
    return { gas, fee, burned, error: null, ...out };
  } catch (err) {
    const message = isChainError(err) || err instanceof Error ? err.message : String(err);
    if (!isChainError(err)) deps.log.debug({ tx: tx.hash, err }, 'transaction failed');
    return { gas, fee, burned, error: message, ...NONE };
  }
}
