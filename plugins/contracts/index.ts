import { badRequest, defineOperation, definePlugin, forbidden, isAddress, isChainError, jsonRecord, notFound, NodeFault, pageOf, readParams, sha3Hex0x, stateKey, storageFee, type NodeServices, type ReadContext } from '../../kernel/sdk.js';
import { callInput, deployFromData, deployRequest, type DeployRequest } from './calls.js';
import { CONTRACT_BASE_GAS, DEPLOY_ADDRESS, DeployGate, PARAMS, dryRun, executeCall, executeDeploy, readSettings, type Settings } from './execute.js';
import { allContracts, codeKey, contractKey, readContract, readMetered, type ContractRecord } from './store.js';
import { loadTemplates } from './templates.js';
import { ContractParams, ContractsOptionsSchema, DeployBody, parseCall, type ContractsOptions } from './schemas.js';
import { duplicateJsonKey } from './json-keys.js';
import { pooledRuntime, processThreads, threadRuntime, type ContractRuntime } from './runtime.js';
import { contractsMethods } from './methods.js';
import { appNameOf, contractAddressOf } from './app-names.js';

/**
 * Where this process runs contracts (runtime.ts): blocks on one contract thread, dry runs and
 * deploy checks on a bounded pool. Set by register; a test may put its own (`useContractRuntimes`).
 */
let runtimes: { readonly blocks: ContractRuntime; readonly offchain: ContractRuntime } | undefined;

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
async function admitDeploy(ctx: ReadContext, s: Settings, req: DeployRequest, account: string, alsoOwed: bigint): Promise<void> {
  const codeHash = sha3Hex0x(req.bytecode);
  if ((await ctx.store.get(codeKey(codeHash))) === undefined) {
    const fee = await storageFee(ctx.params, codeKey(codeHash).length + req.bytecode.length + CONTRACTS_NAMESPACE_BYTES);
    const { balance } = await ctx.accounts.getCore(account);
    if (fee > 0n && balance < fee + alsoOwed) throw badRequest(`insufficient balance for the storage fee: storing ${req.bytecode.length} bytes of new code costs at least ${fee} ucoin (storage_byte_price beyond storage_free_bytes, GET /api/v1/gas/estimate) besides ${alsoOwed} of fee and value; ${account} has ${balance}`);
  }
  await contractRuntimes().offchain.meter(codeHash, req.bytecode, s.limits, true);
}

/** `contracts/` before each key of this plugin's namespace in state. */
const CONTRACTS_NAMESPACE_BYTES = 'contracts/'.length;

/** The fee of a transaction's whole gas limit (what the block takes before it runs). */
const feeOfLimit = (gasLimit: unknown, gasPrice: unknown, baseGas: number): bigint => BigInt(typeof gasLimit === 'number' ? gasLimit : baseGas) * BigInt(typeof gasPrice === 'number' ? gasPrice : 1);

/**
 * The seam the contract analyzer will tap (part 1, Contract execution 9): `deployGate.add(name,
 * check)` from its register. Nothing is installed here.
 */
export const deployGate = new DeployGate();

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
  async check(ctx, op) {
    const s = await readSettings(ctx.params);
    // The kernel checked the fee of the limit against the payer before this; the base counts here when the account pays it.
    await admitDeploy(ctx, s, deployRequest(op.body, s.maxBytecode), op.signer.account, op.signer.payer === op.signer.account ? BigInt(CONTRACT_BASE_GAS) * (await ctx.params.get('base_fee')) : 0n);
    return undefined;
  },
  async execute(ctx, op) {
    const s = await readSettings(ctx.params);
    const { gas } = await executeDeploy(contractRuntimes().blocks, deployGate, ctx, op.actor, op.txHash, deployRequest(op.body, s.maxBytecode), 0n);
    return { gas };
  },
});

async function contractView(ctx: ReadContext, r: ContractRecord): Promise<Record<string, unknown>> {
  // No security_score: no analyzer runs, and a stand-in score would be a lie (issue 24).
  return { address: r.address, owner: r.owner, code_hash: r.code_hash, name: r.name, description: r.description, template: r.template, decimals: r.decimals, deploy_tx: r.deploy_tx, created_height: r.created_height, code_size: r.code_size, app_name: await appNameOf(ctx, r.address) };
}

function page<T>(key: string, all: readonly T[], limit: number, offset: number): Record<string, unknown> {
  const items = all.slice(offset, offset + limit);
  return { [key]: items, total: all.length, limit, offset, has_more: offset + items.length < all.length };
}

const entryCodec = jsonRecord<Record<string, unknown>>();

export const contractsPlugin = definePlugin<ContractsOptions, NodeServices>({
  name: 'contracts',
  kind: 'state',
  description: 'WebAssembly contracts: metered VM, deploy, calls, dry runs, contract events, shipped templates',
  optionsSchema: ContractsOptionsSchema,
  params: [
    { key: PARAMS.fuelPerGas, default: 20_000n, min: 1n, max: 1_000_000_000n, description: 'fuel (metered WebAssembly instructions, host work, instantiation, first reads of state, metering a deploy) one gas unit buys; the base 50 gas of a call buys 50 times this' },
    { key: PARAMS.maxPages, default: 16n, min: 1n, max: 1024n, description: 'most 64 KiB memory pages a contract instance may have' },
    // At most 4 096: the counter must trap before V8's own stack does. A weight-1 recursion overflows
    // V8's stack near 8 400 levels (Liftoff frames), at a fuel that depends on the node's JIT tier,
    // which would charge different gas on different validators (vm.test.ts).
    { key: PARAMS.maxStack, default: 4096n, min: 64n, max: 4096n, description: 'most stack weight (frames × their locals) one call tree may hold before it traps (at most 4 096: below V8\'s own stack limit)' },
    { key: PARAMS.maxBytecode, default: 262_144n, min: 1024n, max: 4_194_304n, description: 'largest contract bytecode, in bytes' },
    { key: PARAMS.maxKeys, default: 1024n, min: 16n, max: 65_536n, description: 'most distinct storage keys one transaction\'s call tree may read' },
  ],
  systemAddresses: [{ address: DEPLOY_ADDRESS, gas: CONTRACT_BASE_GAS }],
  addressKinds: [{ kind: 'app', gas: CONTRACT_BASE_GAS, description: 'a WebAssembly contract: transactions to it call it' }],
  operations: [deployOperation],
  methods: contractsMethods,
  events: [
    { type: 'contract_deployed', description: 'a contract was created', fields: ['address', 'owner', 'code_hash', 'tx_hash', 'gas_used', 'return_data'], socket: true },
    { type: 'contract_called', description: 'a contract call succeeded', fields: ['contract', 'caller', 'function', 'value', 'gas_used', 'return_data'], socket: true },
    { type: 'contract_event', description: 'an event a contract emitted (emit_event)', fields: ['contract', 'event', 'data'], socket: true },
  ],
  register(api) {
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
    // Loaded at boot (Binaryen takes a second), not in the first block or request that needs it.
    threads.consensus.start();
    threads.offchain.start();
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
        return undefined;
      }
      if (tx.target === DEPLOY_ADDRESS) {
        const s = await readSettings(ctx.params);
        try {
          await admitDeploy(ctx, s, deployFromData(tx.data, s.maxBytecode), tx.from, tx.value + feeOfLimit(tx.body.gas_limit, Number(tx.gasPrice), CONTRACT_BASE_GAS));
        } catch (err) {
          if (isChainError(err)) return err;
          throw err;
        }
      }
      return undefined;
    });
    api.hooks.executeTx.for('kind:app').tapPromise(api.name, async (ctx, tx) => ({ gas: (await executeCall(contractRuntimes().blocks, ctx, tx)).gas }));
    api.hooks.executeTx.for(DEPLOY_ADDRESS).tapPromise(api.name, async (ctx, tx) => {
      const s = await readSettings(ctx.params);
      const { gas } = await executeDeploy(contractRuntimes().blocks, deployGate, ctx, tx.from, tx.hash, deployFromData(tx.data, s.maxBytecode), tx.value);
      return { gas };
    });

    const s = api.services;
    const at = <T>(fn: Parameters<typeof s.query.run<T>>[1]): Promise<T> => s.query.run(api.name, fn);
    const address = (raw: string | undefined): string => readParams(ContractParams, { address: raw }).address;
    /**
     * A page of an index list, newest first, reading at most offset + limit + 1 entries (a
     * contract's whole history per request would let anyone make the node read it all). When
     * more entries follow, `total` counts those walked (a lower bound, `total_exact: false`, as
     * the kernel's filtered transaction lists say).
     */
    const indexPage = async (key: string, prefix: string, limit: number, offset: number): Promise<Record<string, unknown>> => {
      const walked = await s.index(api.name).scan(prefix, { reverse: true, limit: offset + limit + 1 });
      const items = walked.slice(offset, offset + limit).map(([, v]) => entryCodec.decode(v));
      const more = walked.length > offset + limit;
      return more ? { [key]: items, total: walked.length, total_exact: false, limit, offset, has_more: true } : { [key]: items, total: walked.length, limit, offset, has_more: false };
    };
    api.hooks.routes.tap(api.name, (routes) =>
      routes.withOwner(api.name, () => {
        routes.get('/api/v1/contracts', (req) =>
          at(async (ctx) => {
            const { limit, offset } = pageOf(req.query, 20, 100);
            const owner = req.query.get('owner');
            const all = (await allContracts(ctx.store)).filter((c) => owner === null || c.owner === owner).sort((a, b) => b.created_height - a.created_height || (a.address < b.address ? -1 : 1));
            return page('contracts', await Promise.all(all.map((c) => contractView(ctx, c))), limit, offset);
          }),
        );
        routes.get('/api/v1/contracts/:address', (req) =>
          at(async (ctx) => {
            const rec = await readContract(ctx.store, await contractAddressOf(ctx, address(req.params.address)));
            if (!rec) throw notFound(`no contract at ${req.params.address}`);
            return contractView(ctx, rec);
          }),
          { proves: (req) => [stateKey(api.name, contractKey(req.params.address!))] },
        );
        routes.get('/api/v1/contracts/:address/events', async (req) => {
          const a = address(req.params.address);
          const { limit, offset } = pageOf(req.query, 50, 200);
          return { contract: a, ...(await indexPage('events', `ev/${a}/`, limit, offset)) };
        });
        routes.get('/api/v1/accounts/:address/token-transfers', async (req) => {
          const a = req.params.address;
          if (!isAddress(a)) throw badRequest(`"${a}" is not a chain address`);
          const { limit, offset } = pageOf(req.query, 50, 200);
          return { address: a, ...(await indexPage('transfers', `tt/${a}/`, limit, offset)) };
        });
        routes.post('/api/v1/contracts/:address/call', (req) => {
          const a = address(req.params.address);
          const body = parseCall(req.body ?? {});
          if (body.dry_run === false) {
            // decisions.md §91 (part 1, Contract execution 11; part 2, 403): on every network, a
            // write goes through consensus.
            throw forbidden('a contract write through the call endpoint is refused (dry_run: false): state changes only in consensus, so send a transaction to the contract instead (POST /api/v1/transactions with data {"function", "args"})');
          }
          const twice = req.bodyText === undefined ? undefined : duplicateJsonKey(req.bodyText);
          if (twice !== undefined) throw badRequest(`"${twice}" appears twice in one object of the call: argument names must be unique`);
          return at(async (ctx) => dryRun(contractRuntimes().offchain, ctx, lastBlockTime, await contractAddressOf(ctx, a), body.data, body.caller ?? '', body.gas_limit));
        });
        const templates = loadTemplates();
        routes.get('/api/v1/templates', (req) => {
          const { limit, offset } = pageOf(req.query, 20, 100);
          return Promise.resolve(page('templates', templates.map((t) => t.summary), limit, offset));
        });
        routes.get('/api/v1/templates/:id', (req) => {
          const t = templates.find((x) => x.summary.id === req.params.id);
          if (!t) throw notFound(`no template ${req.params.id}`);
          return Promise.resolve(t.full);
        });
      }),
    );
  },
});
