export { contractAddress, isContractAddress } from './address.js';
import { contractAddressOf } from './app-names.js';
import { contractAddress } from './address.js';
import { badRequest, conflict, FailedWithGas, formatCoin, isAddress, isChainError, jsonTextDepth, notFound, sha3Hex0x, type ChainError, type ParamReader, type ReadContext, type ReadonlyStore, type TxContext } from '../../kernel/sdk.js';
import { callInput, initDecimals, initializeInput } from './calls.js';
import { payTemplate, type ResolvedDeploy } from './template-registry.js';
import { code, contractEvents, readContract, storedCodeBytes, tokenTransfers, writeContract, writeMetered, type ContractRecord } from './store.js';
import { contractCalled, contractDeployed, contractEvent, templateFeePaid } from './events.js';
import { meteredKey, type ContractEvent, type VmLimits } from './vm/engine.js';
import type { InstrumentedCode } from './vm/instrument.js';
import { isFailure, type TreeFailure, type TreeResult } from './vm/runner.js';
import { DEPLOY_FUEL } from './vm/pricing.js';
import { checkCodeShape, type ModuleShape } from './vm/shape.js';
import { isShippedCode, meteredOnceForAll } from './templates.js';
import type { ContractRuntime } from './runtime.js';

/** Gas of a contract call or deploy before metering (part 1, Amounts 4: 50, as the gas estimate reports). */
export const CONTRACT_BASE_GAS = 50;
export const DEPLOY_ADDRESS = 'chain:system.deploy';

export const PARAMS = {
  fuelPerGas: 'contract_fuel_per_gas',
  maxPages: 'contract_max_memory_pages',
  maxStack: 'contract_max_stack',
  maxBytecode: 'contract_max_bytecode_bytes',
  maxKeys: 'contract_max_storage_keys',
} as const;

/** Part 2, Contract execution: cross-contract call depth 8. */
export const MAX_CALL_DEPTH = 8;

export interface Settings {
  readonly fuelPerGas: bigint;
  readonly maxBytecode: number;
  readonly limits: VmLimits;
}

export async function readSettings(params: ParamReader): Promise<Settings> {
  const [fpg, pages, stack, bytes, keys] = await Promise.all([params.get(PARAMS.fuelPerGas), params.get(PARAMS.maxPages), params.get(PARAMS.maxStack), params.get(PARAMS.maxBytecode), params.get(PARAMS.maxKeys)]);
  return { fuelPerGas: fpg, maxBytecode: Number(bytes), limits: { maxPages: Number(pages), maxStack: Number(stack), maxDepth: MAX_CALL_DEPTH, maxKeys: Number(keys) } };
}

/**
 * Gas of metered work: the base 50 buys `50 × contract_fuel_per_gas` fuel, each further
 * `contract_fuel_per_gas` fuel (or part of it) one more gas. A transaction's fuel budget is its
 * gas limit × contract_fuel_per_gas, so a call that declares no gas_limit still runs 50 gas of fuel.
 */
export function gasOfFuel(fuel: bigint, fuelPerGas: bigint): number {
  const g = (fuel + fuelPerGas - 1n) / fuelPerGas;
  return Math.max(CONTRACT_BASE_GAS, Number(g));
}

/** A deploy about to happen, as the deploy gate sees it. */
export interface DeployCandidate {
  readonly owner: string;
  readonly address: string;
  readonly codeHash: string;
  readonly bytecode: Uint8Array;
}

/** decisions.md §47: how a contract's `security_score` was set. */
export type ScoreSource = 'analyzer' | 'whitelist' | 'operators';

/** The fields a deploy gate gives the contract record it lets through (decisions.md §47). */
export interface ContractSecurity {
  readonly security_score: number;
  readonly risk_score: number;
  readonly model: string;
  readonly score_source: ScoreSource;
}

/**
 * The seam for the contract analyzer's deploy gate (part 1, Contract execution 9): a plugin
 * adds a check with `deployGate.add(name, check)` in its register; every check runs in consensus
 * (and at admission), in order, before a contract is created: the first error it returns (403
 * for a refusal by the analyzer) fails the deploy, and the security fields of the last check that
 * gives them go into the contract record. No check is installed by this plugin, so no score is
 * invented.
 */
export type DeployCheck = (ctx: ReadContext, candidate: DeployCandidate) => Promise<ChainError | ContractSecurity | undefined>;
export interface DeployVerdict {
  readonly refused?: ChainError;
  readonly security?: ContractSecurity;
}
export class DeployGate {
  private readonly checks: Array<{ readonly plugin: string; readonly check: DeployCheck }> = [];
  add(plugin: string, check: DeployCheck): void {
    // One check per plugin: a node that registers a plugin again (tests) replaces its check.
    const i = this.checks.findIndex((c) => c.plugin === plugin);
    if (i >= 0) this.checks.splice(i, 1, { plugin, check });
    else this.checks.push({ plugin, check });
  }
  async verdict(ctx: ReadContext, candidate: DeployCandidate): Promise<DeployVerdict> {
    let security: ContractSecurity | undefined;
    for (const c of this.checks) {
      const answer = await c.check(ctx, candidate);
      if (isChainError(answer)) return { refused: answer };
      if (answer) security = answer;
    }
    return security ? { security } : {};
  }
}

/** What metering a module of this shape costs (DEPLOY_FUEL), on top of its bytes. */
export function deployMeteringFuel(shape: ModuleShape): bigint {
  return BigInt(DEPLOY_FUEL.perModule) + BigInt(DEPLOY_FUEL.perFunction) * BigInt(shape.functions) + BigInt(DEPLOY_FUEL.perInstruction) * BigInt(shape.instructions) + BigInt(DEPLOY_FUEL.perRegion) * BigInt(shape.regions);
}

/** Event data nested deeper than this stays the text the contract emitted. */
export const MAX_EVENT_NESTING = 32;

/** A contract event's data: its JSON when that is integers-only and at most MAX_EVENT_NESTING deep, else the text. */
export function eventData(text: string): unknown {
  if (jsonTextDepth(text) > MAX_EVENT_NESTING) return text;
  try {
    const v: unknown = JSON.parse(text);
    return integersOnly(v) ? v : text;
  } catch {
    return text;
  }
}

function integersOnly(v: unknown): boolean {
  if (typeof v === 'number') return Number.isSafeInteger(v);
  if (Array.isArray(v)) return v.every(integersOnly);
  if (v !== null && typeof v === 'object') return Object.values(v).every(integersOnly);
  return true;
}

const decoder = new TextDecoder();

/**
 * Applies a finished call tree in the transaction: its storage writes, events and index entries.
 * The writes' keys are the `storage` store's (the tree built them with `storageKey`), written as
 * they come; the kernel holds them to the declaration.
 */
function apply(ctx: TxContext, r: TreeResult, seq: { n: number }): void {
  for (const [k, v] of r.writes) {
    if (v === null) ctx.store.delete(k);
    else ctx.store.set(k, v);
  }
  publish(ctx, r.events, seq);
}

/** `seq` numbers the transaction's contract events (a deploy applies two call trees). */
function publish(ctx: TxContext, events: readonly ContractEvent[], seq: { n: number }): void {
  for (const e of events) {
    const data = eventData(e.data);
    contractEvent.emit(ctx, { contract: e.contract, event: e.name, data });
    const seqText = String(seq.n++).padStart(4, '0');
    contractEvents.set(ctx.index, e.contract, ctx.block.height, ctx.tx.hash, seqText, { height: ctx.block.height, tx_hash: ctx.tx.hash, contract: e.contract, event: e.name, data });
    if (e.name === 'Transfer' && data !== null && typeof data === 'object' && !Array.isArray(data)) {
      const d = data as Record<string, unknown>;
      const transfer = { height: ctx.block.height, tx_hash: ctx.tx.hash, contract: e.contract, from: d.from ?? null, to: d.to ?? null, amount: d.amount ?? null };
      // Listed under each party that is an address: the route reads no other (a contract's text may be anything).
      const parties = new Set([d.from, d.to].filter((a): a is string => typeof a === 'string' && isAddress(a)));
      for (const p of [...parties].sort()) tokenTransfers.set(ctx.index, p, ctx.block.height, ctx.tx.hash, seqText, transfer);
    }
  }
}

function fail(what: string, f: TreeFailure, fuelPerGas: bigint): never {
  throw new FailedWithGas(`${what}: ${f.trap.message}`, gasOfFuel(f.fuelUsed, fuelPerGas));
}

/**
 * The attached value must be there before any metered work: it moves only after the contract ran
 * (part 1, Contract execution 5), and a failure at that point would charge the base gas for work
 * up to the limit. No host function moves the sender's coins, so a balance enough now is enough then.
 * Admission refuses it already; this is the block's rule for a proposer that skipped checkTx.
 */
async function valueProblem(ctx: TxContext, from: string, value: bigint): Promise<void> {
  if (value === 0n) return;
  const { balance } = await ctx.accounts.getCore(from);
  if (balance < value) throw badRequest(`insufficient balance for the attached value: ${from} has ${balance} ucoin after the fee, the call attaches ${value}; refused before the contract ran`);
}

export interface CallOutput {
  readonly gas: number;
  readonly returnData: string;
}

/** A contract call in a block (a transaction to a `.app`). */
export async function executeCall(runtime: ContractRuntime, ctx: TxContext, tx: TxContext['tx']): Promise<CallOutput> {
  const s = await readSettings(ctx.params);
  const rec = await readContract(ctx.store, await contractAddressOf(ctx, tx.to));
  if (!rec) throw notFound(`no contract at ${tx.to}`);
  const input = callInput(tx.data, rec.decimals);
  await valueProblem(ctx, tx.from, tx.value);
  let gas = CONTRACT_BASE_GAS;
  let returnData = '';
  if (input.bytes.length > 0) {
    const budget = BigInt(ctx.gasLimit) * s.fuelPerGas;
    const r = await runtime.run(ctx.store, { height: ctx.block.height, time: ctx.block.timestamp }, { contract: rec.address, caller: tx.from, entry: 'call', input: input.bytes }, budget, s.limits);
    if (isFailure(r)) fail(`contract ${rec.address}${input.fn ? ` (${input.fn})` : ''}`, r, s.fuelPerGas);
    apply(ctx, r, { n: 0 });
    gas = gasOfFuel(r.outcome.fuelUsed, s.fuelPerGas);
    returnData = decoder.decode(r.outcome.returnData);
  }
  // Part 1, Contract execution 5: the value moves only once the call succeeded.
  if (tx.value > 0n) await ctx.accounts.transfer(tx.from, rec.address, tx.value);
  contractCalled.emit(ctx, { contract: rec.address, caller: tx.from, function: input.fn ?? null, value: tx.value.toString(), gas_used: gas, return_data: returnData });
  return { gas, returnData };
}

/** A deploy in a block: from a plain transaction to chain:system.deploy or the deploy operation. */
export async function executeDeploy(runtime: ContractRuntime, gate: DeployGate, ctx: TxContext, owner: string, txHash: string, req: ResolvedDeploy, value: bigint): Promise<{ gas: number; address: string }> {
  const s = await readSettings(ctx.params);
  const codeHash = sha3Hex0x(req.bytecode);
  const budget = BigInt(ctx.gasLimit) * s.fuelPerGas;
  // Checking, metering and storing the code is work too: paid before any of it is done.
  let used = 0n;
  const pay = (fuel: bigint, what: string): void => {
    used += fuel;
    if (used > budget) throw new FailedWithGas(`out of fuel: ${what} costs ${used} fuel, the deploy's budget is ${budget} (raise gas_limit)`, ctx.gasLimit);
  };
  pay(BigInt(req.bytecode.length) * BigInt(DEPLOY_FUEL.perByte), `storing ${req.bytecode.length} bytes of code`);
  let metered: InstrumentedCode;
  try {
    if (!meteredOnceForAll(codeHash, req.templateUse !== undefined)) {
      const shape = checkCodeShape(req.bytecode);
      pay(deployMeteringFuel(shape), `metering ${shape.functions} functions of ${shape.instructions} instructions in ${shape.regions} blocks (and storing ${req.bytecode.length} bytes)`);
    }
    metered = await runtime.meter(codeHash, req.bytecode, s.limits);
  } catch (err) {
    // Refused bytes were checked all the same (admission refuses them; a proposer that skipped it pays).
    if (isChainError(err)) throw new FailedWithGas(err.message, gasOfFuel(used, s.fuelPerGas));
    throw err;
  }
  const { exports } = metered;
  const address = contractAddress(owner, txHash, ctx.shard);
  const verdict = await gate.verdict(ctx, { owner, address, codeHash, bytecode: req.bytecode });
  if (verdict.refused) throw verdict.refused;
  if (await readContract(ctx.store, address)) throw conflict(`a contract already exists at ${address}`);
  await valueProblem(ctx, owner, value);
  const fee = req.templateUse?.fee ?? 0n;
  if (fee > 0n) {
    // Like the value: there before any metered work, taken only once the deploy succeeded (decisions.md §51).
    const { balance } = await ctx.accounts.getCore(owner);
    if (balance < value + fee) throw badRequest(`insufficient balance for the template fee: template ${req.templateUse!.id} costs ${fee} ucoin besides ${value} of value, ${owner} has ${balance} after the fee`);
  }
  const decimals = initDecimals(req.initArgs);
  const record: ContractRecord = { address, owner, code_hash: codeHash, name: req.name, description: req.description, template: req.template, decimals, deploy_tx: txHash, created_height: ctx.block.height, code_size: req.bytecode.length, ...verdict.security };
  // A shipped template's code ships with every node: its bytes are sized by the protocol, not
  // chosen by the deployer, so storing them the first time is not priced as growth (kernel/chain/state-growth.ts).
  if (isShippedCode(codeHash) && !(await code.has(ctx.store, codeHash))) ctx.protocolSizedBytes(storedCodeBytes(codeHash, req.bytecode));
  writeContract(ctx.store, record, req.bytecode);
  // Node-local, in this block's batch: a later cache miss compiles these bytes instead of metering again.
  writeMetered(ctx.index, meteredKey(codeHash, s.limits), metered);
  const block = { height: ctx.block.height, time: ctx.block.timestamp };
  const runs: Array<{ entry: 'init' | 'call'; input: Uint8Array; what: string }> = [];
  if (exports.includes('init')) runs.push({ entry: 'init', input: new Uint8Array(0), what: `init of ${address}` });
  if (req.initArgs) runs.push({ entry: 'call', input: initializeInput(req.initArgs, decimals), what: `initialize of ${address}` });
  let returnData = '';
  const seq = { n: 0 };
  for (const run of runs) {
    const r = await runtime.run(ctx.store, block, { contract: address, caller: owner, entry: run.entry, input: run.input }, budget - used, s.limits);
    if (isFailure(r)) fail(run.what, { trap: r.trap, fuelUsed: used + r.fuelUsed }, s.fuelPerGas);
    apply(ctx, r, seq);
    used += r.outcome.fuelUsed;
    returnData = decoder.decode(r.outcome.returnData);
  }
  if (value > 0n) await ctx.accounts.transfer(owner, address, value);
  if (req.templateUse) {
    await payTemplate(ctx, owner, req.templateUse);
    templateFeePaid.emit(ctx, { template: req.templateUse.id, contract: address, payer: owner, payee: req.templateUse.payee ?? null, template_fee: fee, template_fee_human: formatCoin(fee) });
  }
  const gas = gasOfFuel(used, s.fuelPerGas);
  contractDeployed.emit(ctx, { address, owner, code_hash: codeHash, tx_hash: txHash, gas_used: gas, return_data: returnData });
  return { gas, address };
}

export interface DryRunResult {
  success: boolean;
  dry_run: true;
  contract: string;
  height: number;
  gas_used: number;
  return_data: string;
  events: Array<{ contract: string; event: string; data: unknown }>;
  error: string | null;
}

/** A call on committed state: no transaction, no fee, nothing written (part 1, Contract execution 11). */
export async function dryRun(runtime: ContractRuntime, ctx: { height: number; params: ParamReader; store: ReadonlyStore }, time: number, address: string, data: string, caller: string, gasLimit: number | undefined): Promise<DryRunResult> {
  const s = await readSettings(ctx.params);
  const rec = await readContract(ctx.store, address);
  if (!rec) throw notFound(`no contract at ${address}`);
  const input = callInput(data, rec.decimals);
  // A dry run is unsigned: no more work than a block may hold (and a contract thread outside consensus runs it, bounded in time).
  const maxBlockGas = Number(await ctx.params.get('max_block_gas'));
  if (gasLimit !== undefined && gasLimit > maxBlockGas) throw badRequest(`gas_limit ${gasLimit} is above max_block_gas (${maxBlockGas}): a dry run may use at most what a block holds`);
  const limit = gasLimit ?? maxBlockGas;
  const budget = BigInt(limit) * s.fuelPerGas;
  const r = await runtime.run(ctx.store, { height: ctx.height, time }, { contract: address, caller, entry: 'call', input: input.bytes }, budget, s.limits);
  if (isFailure(r)) return { success: false, dry_run: true, contract: address, height: ctx.height, gas_used: gasOfFuel(r.fuelUsed, s.fuelPerGas), return_data: '', events: [], error: r.trap.message };
  return {
    success: true,
    dry_run: true,
    contract: address,
    height: ctx.height,
    gas_used: gasOfFuel(r.outcome.fuelUsed, s.fuelPerGas),
    return_data: decoder.decode(r.outcome.returnData),
    events: r.events.map((e) => ({ contract: e.contract, event: e.name, data: eventData(e.data) })),
    error: null,
  };
}

