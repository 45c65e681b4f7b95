import { Bench } from 'tinybench';
import { sha3Hex0x } from '../kernel/sdk.js';
import { callInput, initializeInput } from '../plugins/contracts/calls.js';
import { codeKey, contractCodec, contractKey, type ContractRecord } from '../plugins/contracts/store.js';
import { templateBytecode } from '../plugins/contracts/templates.js';
import { HOSTILE_WAT, wat } from '../plugins/contracts/testing/hostile.js';
import { Vm, type CallEnv, type VmLimits } from '../plugins/contracts/vm/engine.js';
import { isFailure, runTree } from '../plugins/contracts/vm/runner.js';

/**
 * The contract VM's cost (issue 24): a CPU-heavy contract (an integer LCG loop) metered by the
 * VM against the same bytecode compiled as it is (target: at most 1.3×), and calls per second of
 * the AssemblyScript token's `transfer` in process (runner + VM + storage view, no consensus).
 * `npm run build && node dist/bench/contracts.bench.js`.
 */
const limits: VmLimits & { maxKeys: number } = { maxPages: 16, maxStack: 4096, maxDepth: 8, maxKeys: 1024 };
const ITERATIONS_BYTE = 16; // × 65 536 loop iterations per call
const cpu = wat(HOSTILE_WAT.cpuHeavy);
const vm = new Vm();
const cpuHash = sha3Hex0x(cpu);
await vm.ready();
vm.prepare(cpuHash, cpu, limits);

// Unmetered: the same bytes compiled by V8 as they are, called the same way (alloc, copy, call).
const raw = new WebAssembly.Instance(new WebAssembly.Module(cpu), {});
const rawMemory = raw.exports.memory as WebAssembly.Memory;
const rawAlloc = raw.exports.alloc as (n: number) => number;
const rawCall = raw.exports.call as (p: number, l: number) => void;
const input = new Uint8Array([ITERATIONS_BYTE]);

const env: CallEnv = {
  height: 1,
  time: 0,
  events: [],
  code: (a) => (a === 'chain:00000000c0.app' ? { codeHash: cpuHash, bytes: () => cpu } : undefined),
  read: () => undefined,
  write: () => undefined,
  remove: () => undefined,
};
let lastFuel = 0n;
const bench = new Bench({ time: 3000 });
bench
  .add('CPU-heavy contract, unmetered (V8 as is)', () => {
    const p = rawAlloc(input.length);
    new Uint8Array(rawMemory.buffer).set(input, p);
    rawCall(p, input.length);
  })
  .add('CPU-heavy contract, metered (fresh instance per call)', () => {
    lastFuel = vm.run(env, { contract: 'chain:00000000c0.app', caller: 'chain:x', entry: 'call', input }, 10n ** 12n, limits).fuelUsed;
  });

// The token: one contract, transfers between two holders, state in memory.
const kv = new Map<string, Uint8Array>();
const token = templateBytecode('token.wasm');
const tokenHash = sha3Hex0x(token);
const T = 'chain:00000000t0.app';
const rec: ContractRecord = { address: T, owner: 'chain:alice', code_hash: tokenHash, name: 'T', description: '', template: 'fungible-token', decimals: 6, deploy_tx: '0x', created_height: 1, code_size: token.length };
kv.set(contractKey(T), contractCodec.encode(rec));
kv.set(codeKey(tokenHash), token);
const reader = { get: async (k: string) => kv.get(k) };
const run = async (caller: string, bytes: Uint8Array) => {
  const r = await runTree(vm, reader, { height: 1, time: 0 }, { contract: T, caller, entry: 'call', input: bytes }, 10n ** 9n, limits);
  if (isFailure(r)) throw r.trap;
  for (const [k, v] of r.writes) if (v) kv.set(k, v);
  return r;
};
await run('chain:alice', initializeInput({ name: 'T', symbol: 'T', decimals: 6, total_supply: '1000000' }, 6));
const transfer = callInput(JSON.stringify({ function: 'transfer', args: { to: 'chain:bob', amount: '0.000001' } }), 6).bytes;
let transferFuel = 0n;
bench.add('token transfer (in process: runner, VM, storage view)', async () => {
  transferFuel = (await run('chain:alice', transfer)).outcome.fuelUsed;
});

await bench.run();
const rows = bench.tasks.map((t) => {
  const r = t.result as { throughput?: { mean: number }; latency?: { mean: number; p50?: number }; error?: unknown } | undefined;
  if (r?.error) console.error(`${t.name} failed:`, r.error);
  return { task: t.name, 'ops/s': Math.round(r?.throughput?.mean ?? 0), 'mean ms': Number((r?.latency?.mean ?? 0).toFixed(3)), 'median ms': Number((r?.latency?.p50 ?? 0).toFixed(3)) };
});
console.table(rows);
const [unmetered, metered] = rows;
// The median: a shared machine's stalls land in the mean of a few-millisecond task.
console.log(`metered / unmetered median time: ${((metered!['median ms'] || 0) / (unmetered!['median ms'] || 1)).toFixed(2)}× (target ≤ 1.3×); fuel per CPU-heavy call ${lastFuel}; fuel per token transfer ${transferFuel}`);
