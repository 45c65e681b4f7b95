import { badRequest, ConfigError, defineOperation, definePlugin, isChainError, notFound, NodeFault, sha3Hex0x, storageFee, type NodeServices, type ReadContext } from '../../kernel/sdk.js';
import { callInput, deployFromData, deployRequest } from './calls.js';
import { resolveDeploy, type ResolvedDeploy } from './template-registry.js';
import { TEMPLATE_STORES } from './template-store.js';
import { isShippedCode } from './templates.js';
import { templateOperations } from './operations/templates.js';
import { CONTRACT_BASE_GAS, DEPLOY_ADDRESS, DeployGate, PARAMS, contractAddress, executeCall, executeDeploy, readSettings, type Settings } from './execute.js';
import { code, storedCodeBytes, CONTRACTS_INDEXES, CONTRACTS_STORES, readContract, readMetered } from './store.js';
import { ContractsOptionsSchema, DeployBody, type ContractsOptions } from './schemas.js';
import { CONTRACTS_EVENTS } from './events.js';
import { CONTRACTS_ROUTES, contractsRoutes } from './routes.js';
import { contractsMethods } from './methods.js';
import { pooledRuntime, processThreads, threadRuntime, type ContractRuntime } from './runtime.js';
import { contractAddressOf } from './app-names.js';
import { deployBodyGas, deployDataGas, REFERENCE_FUEL_PER_GAS } from './deploy-gas.js';

/**
 * Where this process runs contracts (runtime.ts): blocks on one contract thread, dry runs and
 * deploy checks on a bounded pool. Set by register; a test may put its own (`useContractRuntimes`).
 */
let runtimes: { readonly blocks: ContractRuntime; readonly offchain: ContractRuntime } | undefined;

/**
 * Starts the blocks' contract thread ahead of the block that needs it (register sets it; a
 * no-op before). Called where this node admits a contract call or deploy.
 */
let startBlockThread: () => void = () => undefined;

/** Replaces the runtimes register set (tests that run contracts in their own thread or count metering passes). */
export function useContractRuntimes(r: { readonly blocks: ContractRuntime; readonly offchain: ContractRuntime }): void {
  runtimes = r;
}

function contractRuntimes(): { readonly blocks: ContractRuntime; readonly offchain: ContractRuntime } {
  if (!runtimes) throw new NodeFault('the contracts plugin has not registered its contract threads on this node');
  return runtimes;
}

/**
 * A deploy at admission: its acting account can pay the storage fee of its new code (the one part
 * of its state growth known before it runs: 400 otherwise), then its bytes are checked and metered outside consensus
 * (400 refused, 503 when the node's contract threads are busy). The block charges the storage fee
 * of all it stores (chain/state-growth.ts) and fails the deploy if the account cannot pay it then.
 */
async function admitDeploy(ctx: ReadContext, s: Settings, req: ResolvedDeploy, account: string, owed: bigint, owner: string, txHash: string, meter: 'offchain' | 'none'): Promise<void> {
  const codeHash = sha3Hex0x(req.bytecode);
  // decisions.md §51: a template's fee is covered at admission besides the fee (400), taken in the block only if the deploy succeeds.
  const templateFee = req.templateUse?.fee ?? 0n;
  const alsoOwed = owed + templateFee;
  if (templateFee > 0n) {
    const { balance } = await ctx.accounts.getCore(account);
    if (balance < alsoOwed) throw badRequest(`insufficient balance for the template fee: template ${req.templateUse!.id} costs ${templateFee} ucoin besides ${owed} of fee and value; ${account} has ${balance}`);
  }
  // A shipped template's code is not priced (sized by the protocol: every node ships it; execute.ts).
  if (!isShippedCode(codeHash) && !(await code.has(ctx.store, codeHash))) {
    const fee = await storageFee(ctx.params, storedCodeBytes(codeHash, req.bytecode));
    const { balance } = await ctx.accounts.getCore(account);
    if (fee > 0n && balance < fee + alsoOwed) throw badRequest(`insufficient balance for the storage fee: storing ${req.bytecode.length} bytes of new code costs at least ${fee} ucoin (storage_byte_price beyond storage_free_bytes, GET /api/v1/gas/estimate) besides ${alsoOwed} of fee and value; ${account} has ${balance}`);
  }
  if (meter === 'offchain') await meterThenGate(ctx, s, req, owner, txHash);
}

/**
 * Admission's bytecode checks (400) on the off-chain pool, then the gate (decisions.md §47: 403,
 * nothing charged), in the order the block judges them (executeDeploy). The pool has a queue and
 * a time limit of its own, so its answer may differ between validators: only admission asks it
 * (an operation's `admit`, a plain transaction's `checkTx`); the block meters on its own thread
 * and runs the gate again there.
 */
async function meterThenGate(ctx: ReadContext, s: Settings, req: ResolvedDeploy, owner: string, txHash: string): Promise<void> {
  const codeHash = sha3Hex0x(req.bytecode);
  await contractRuntimes().offchain.meter(codeHash, req.bytecode, s.limits, true);
  const verdict = await deployGate.verdict(ctx, { owner, address: contractAddress(owner, txHash, ctx.shard), codeHash, bytecode: req.bytecode });
  if (verdict.refused) throw verdict.refused;
}

/** The fee of a transaction's whole gas limit (what the block takes before it runs). */
const feeOfLimit = (gasLimit: unknown, gasPrice: unknown, baseGas: number): bigint => BigInt(typeof gasLimit === 'number' ? gasLimit : baseGas) * BigInt(typeof gasPrice === 'number' ? gasPrice : 1);

/**
 * The seam the contract analyzer will tap (part 1, Contract execution 9): `deployGate.add(name,
 * check)` from its register. Nothing is installed here.
 */
export const deployGate = new DeployGate();

/** decisions.md §51: what a confirmed deploy naming a template shows (operation or plain transaction). */
const TEMPLATE_FEE_VIEW = [
  { field: 'template_fee', event: 'template_fee_paid' },
  { field: 'template_fee_human', event: 'template_fee_paid' },
];

const deployOperation = defineOperation({
  // decisions.md §17: the transaction type of a deploy is `deploy` (also the `<kind>` a v4 signature names, §94).
  name: 'deploy',
  description: 'deploys a WebAssembly contract (part 1, Contract execution 7 and 9)',
  // Part 1: Node only. The gateway's socket `deploy_contract` sends a deploy transaction instead.
  routes: [{ method: 'POST', path: '/api/v1/contracts/deploy', nodeOnly: true }],
  schema: DeployBody,
  signsFor: DEPLOY_ADDRESS,
  value: null,
  gas: CONTRACT_BASE_GAS,
  // Storing and metering the bytes (deploy-gas.ts): a deploy needs no gas_limit for them.
  bodyGas: deployBodyGas,
  async check(ctx, op) {
    const s = await readSettings(ctx.params);
    // The kernel judges the fee of the limit against the payer after this check; the storage fee is judged with it here when the account pays it.
    // The limit without a declared gas_limit; a declared one is held by the kernel's funds check.
    const limit = CONTRACT_BASE_GAS + deployBodyGas(op.body);
    await admitDeploy(ctx, s, await resolveDeploy(ctx, deployRequest(op.body, s.maxBytecode)), op.signer.account, op.signer.payer === op.signer.account ? BigInt(limit) * (await ctx.params.get('base_fee')) : 0n, op.actor, op.txHash, 'none');
    return undefined;
  },
  async admit(ctx, op) {
    const s = await readSettings(ctx.params);
    await meterThenGate(ctx, s, await resolveDeploy(ctx, deployRequest(op.body, s.maxBytecode)), op.actor, op.txHash);
    // Past this plugin's checks, metering and gate: its block will need the thread (one refused by
    // them must not make the node carry it; a later step of admission may still refuse it, which
    // costs at most this one start per node).
    startBlockThread();
    return undefined;
  },
  async execute(ctx, op) {
    const s = await readSettings(ctx.params);
    const { gas } = await executeDeploy(contractRuntimes().blocks, deployGate, ctx, op.actor, op.txHash, await resolveDeploy(ctx, deployRequest(op.body, s.maxBytecode)), 0n);
    return { gas };
  },
  // decisions.md §95: the template fee is taken from the signing account besides the fee.
  async debits(ctx, op) {
    try {
      const s = await readSettings(ctx.params);
      return (await resolveDeploy(ctx, deployRequest(op.body, s.maxBytecode))).templateUse?.fee ?? 0n;
    } catch (err) {
      if (isChainError(err)) return 0n; // a deploy refused for its template takes nothing; check says why
      throw err;
    }
  },
  // decisions.md §51: the confirmed deploy's transaction carries the template fee.
  viewFields: TEMPLATE_FEE_VIEW,
  returnsData: true,
});

const [registerTemplateOperation, deprecateTemplateOperation] = templateOperations({
  gate: deployGate,
  meter: async (where, codeHash, bytes, s) => {
    const r = contractRuntimes();
    await (where === 'admission' ? r.offchain.meter(codeHash, bytes, s.limits, true) : r.blocks.meter(codeHash, bytes, s.limits));
  },
  accepted: () => startBlockThread(),
});

export const contractsPlugin = definePlugin<ContractsOptions, NodeServices>({
  name: 'contracts',
  kind: 'state',
  description: 'WebAssembly contracts: metered VM, deploy, calls, dry runs, contract events, shipped templates',
  optionsSchema: ContractsOptionsSchema,
  params: [
    { key: PARAMS.fuelPerGas, default: REFERENCE_FUEL_PER_GAS, min: 1n, max: 1_000_000_000n, description: 'fuel (metered WebAssembly instructions, host work, instantiation, first reads of state, metering a deploy) one gas unit buys; the base 50 gas of a call buys 50 times this' },
    { key: PARAMS.maxPages, default: 16n, min: 1n, max: 1024n, description: 'most 64 KiB memory pages a contract instance may have' },
    // At most 4 096: the counter must trap before V8's own stack does. A weight-1 recursion overflows
    // V8's stack near 8 400 levels (Liftoff frames), at a fuel that depends on the node's JIT tier,
    // which would charge different gas on different validators (vm.test.ts).
    { key: PARAMS.maxStack, default: 4096n, min: 64n, max: 4096n, description: 'most stack weight (frames × their locals) one call tree may hold before it traps (at most 4 096: below V8\'s own stack limit)' },
    { key: PARAMS.maxBytecode, default: 262_144n, min: 1024n, max: 4_194_304n, description: 'largest contract bytecode, in bytes' },
    { key: PARAMS.maxKeys, default: 1024n, min: 16n, max: 65_536n, description: 'most distinct storage keys one transaction\'s call tree may read' },
  ],
  systemAddresses: [{ address: DEPLOY_ADDRESS, gas: CONTRACT_BASE_GAS, dataGas: deployDataGas, viewFields: TEMPLATE_FEE_VIEW, returnsData: true, txType: 'deploy' }],
  addressKinds: [{ kind: 'app', gas: CONTRACT_BASE_GAS, description: 'a WebAssembly contract: transactions to it call it', returnsData: true, txType: 'call_contract' }],
  operations: [deployOperation, registerTemplateOperation, deprecateTemplateOperation],
  // Listed so the gateway forwards them under these declarations.
  routes: CONTRACTS_ROUTES,
  methods: contractsMethods,
  stores: [...CONTRACTS_STORES, ...TEMPLATE_STORES],
  indexes: CONTRACTS_INDEXES,
  events: CONTRACTS_EVENTS,
  register(api) {
    // Part 1, Contract execution 9: every deploy is analysed and gated in consensus, so a network
    // that runs contracts runs the analyzer (its deploy gate, plugins/analyzer) beside them.
    if (!api.config.plugins.some((p) => p.name === 'analyzer' && p.enabled)) {
      throw new ConfigError(`plugins: "contracts" is enabled without "analyzer" in configs/${api.config.network}.json: every deploy is analysed and gated in consensus (part 1, Contract execution 9), so enable "analyzer" after "contracts"`);
    }
    // The contract threads read instrumented code from this node's index on a cache miss. A cache
    // only: a failed read (a closed store of a stopped in-process node) instruments again.
    const loadMetered = async (key: string) => {
      try {
        return await readMetered(api.services.index(api.name), key);
      } catch {
        return undefined;
      }
    };
    const threads = processThreads({ offchainThreads: api.options.offchain_threads, offchainQueue: api.options.offchain_queue, offchainTimeoutMs: api.options.offchain_timeout_ms });
    runtimes = { blocks: threadRuntime(threads.consensus, loadMetered), offchain: pooledRuntime(threads.offchain, loadMetered) };
    // Not started at boot: each contract thread is a V8 isolate with Binaryen loaded, ~90 MiB of
    // a validator's resident memory idle (docs/performance.md, "Where a validator's memory goes"),
    // paid by every node of a chain that runs no contract. The blocks' thread starts when this
    // node's admission passes the first call, deploy or template through this plugin's checks (below), so Binaryen's second of loading falls at
    // admission, not in the block; a block whose contract this node never admitted starts it on
    // demand (same result, a second later). The off-chain pool starts a thread at its first request.
    startBlockThread = () => threads.consensus.start();
    let lastBlockTime = 0;
    api.hooks.committed.tapPromise(api.name, async (c) => {
      lastBlockTime = c.block.header.timestamp;
    });
    api.hooks.recordExists.for('app').tapPromise(api.name, async (ctx, address) => (await readContract(ctx.store, await contractAddressOf(ctx, address))) !== undefined);
    api.hooks.checkTx.tapPromise(api.name, async (ctx, tx) => {
      if (tx.origin !== 'signed') return undefined;
      if (tx.target === 'kind:app') {
        // A call whose data the node cannot turn into input is refused here rather than failed in
        // a block (the block re-reads it and fails the same way if a proposer skipped this).
        const rec = await readContract(ctx.store, await contractAddressOf(ctx, tx.to));
        if (!rec) return notFound(`no contract at ${tx.to}`);
        try {
          callInput(tx.data, rec.decimals);
        } catch (err) {
          if (isChainError(err)) return err;
          throw err;
        }
        // Past this plugin's checks: its block will run it on the blocks' thread (a call these refuse starts nothing).
        startBlockThread();
        return undefined;
      }
      if (tx.target === DEPLOY_ADDRESS) {
        const s = await readSettings(ctx.params);
        try {
          await admitDeploy(ctx, s, await resolveDeploy(ctx, deployFromData(tx.data, s.maxBytecode)), tx.from, tx.value + feeOfLimit(tx.body.gas_limit, Number(tx.gasPrice), CONTRACT_BASE_GAS + deployDataGas(tx.data)), tx.from, tx.hash, 'offchain');
        } catch (err) {
          if (isChainError(err)) return err;
          throw err;
        }
        startBlockThread();
      }
      return undefined;
    });
    api.hooks.executeTx.for('kind:app').tapPromise(api.name, async (ctx, tx) => ({ gas: (await executeCall(contractRuntimes().blocks, ctx, tx)).gas }));
    api.hooks.executeTx.for(DEPLOY_ADDRESS).tapPromise(api.name, async (ctx, tx) => {
      const s = await readSettings(ctx.params);
      const { gas } = await executeDeploy(contractRuntimes().blocks, deployGate, ctx, tx.from, tx.hash, await resolveDeploy(ctx, deployFromData(tx.data, s.maxBytecode)), tx.value);
      return { gas };
    });

    api.hooks.routes.tap(api.name, (routes) =>
      routes.withOwner(api.name, () => contractsRoutes(routes, api.services, api.name, { offchain: () => contractRuntimes().offchain, lastBlockTime: () => lastBlockTime })),
    );
  },
});
