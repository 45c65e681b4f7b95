import { Bench } from 'tinybench';
import binaryen from 'binaryen';
import { signOperation, makeChain, wallet } from '../test/helpers/chain-fixture.js';
import { toHex } from '../kernel/sdk.js';
import { contractsPlugin } from '../plugins/contracts/index.js';
import { DEPLOY_ADDRESS, HOST_FUNCTIONS, HOST_MODULE } from '../plugins/contracts/public.js';
import { templateBytecode } from '../plugins/contracts/templates.js';
import { instrument, loadBinaryen } from '../plugins/contracts/vm/instrument.js';
import { checkCodeShape } from '../plugins/contracts/vm/shape.js';
import { analyzerPlugin } from '../plugins/analyzer/index.js';
import { analyzeStaticV1 } from '../plugins/analyzer/static-v1.js';

/**
 * The analyzer's cost (issue 32 item 7): static-v1 of the token template and of a 256 KiB module
 * of code (loops, host calls, branches: the scan's worst kind of input), beside the metering of
 * the same bytes (the deploy's other pass over them), and the admission of a deploy with the gate
 * on, in process. `npm run build && node dist/bench/analyzer.bench.js`.
 */
const token = templateBytecode('token.wasm');

/** A module of code near 256 KiB: many functions, each with nested blocks, a loop and host calls. */
function bigModule(target: number): Uint8Array {
  const fn = (i: number) => `(func $f${i} (param i32) (result i32) (local i32)
    (block $out (loop $l
      (br_if $out (i32.ge_u (local.get 1) (local.get 0)))
      (call $w (i32.const 0) (i32.const 4) (local.get 1) (i32.const 4))
      (local.set 1 (i32.add (local.get 1) (i32.const ${(i % 7) + 1})))
      (if (i32.eqz (i32.and (local.get 1) (i32.const 3))) (then (drop (call $f0 (local.get 1)))))
      (br $l)))
    (local.get 1))`;
  let n = 200;
  for (;;) {
    const text = `(module (import "env" "storage_write" (func $w (param i32 i32 i32 i32))) (memory (export "memory") 1)
      (func (export "alloc") (param i32) (result i32) (i32.const 1024))
      (func (export "call") (param i32 i32) (drop (call $f0 (local.get 1))))
      ${Array.from({ length: n }, (_, i) => fn(i)).join('\n')})`;
    const m = binaryen.parseText(text);
    const bytes = m.emitBinary();
    m.dispose();
    if (bytes.length >= target) return bytes;
    n = Math.ceil((n * target) / bytes.length) + 1;
  }
}

const big = bigModule(250_000);
checkCodeShape(big);
await loadBinaryen();
const limits = { maxPages: 16, maxStack: 4096 };

const alice = wallet(61);
const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], accounts: [{ address: alice.address, balance: 10_000_000_000_000n }], mempool: { maxTxs: 1_000_000, maxPerSender: 1_000_000 } });
let clock = 1_700_000_000_000;
const tokenHex = toHex(token);

const bench = new Bench({ time: 2_000 });
bench
  .add(`static-v1 of the token template (${token.length} bytes)`, () => {
    analyzeStaticV1(token, HOST_FUNCTIONS, HOST_MODULE);
  })
  .add(`static-v1 of a ${big.length}-byte module of code`, () => {
    analyzeStaticV1(big, HOST_FUNCTIONS, HOST_MODULE);
  })
  .add(`metering (Binaryen instrument) of the same ${big.length}-byte module`, () => {
    instrument(big, limits);
  })
  .add('admission of a token deploy operation with the gate on (signature, metering cache, analysis cache, gate)', async () => {
    await f.chain.admitOperation('deploy', signOperation(alice, { kind: 'deploy', actor: alice.address, target: DEPLOY_ADDRESS, nonce: ++clock, body: { owner: alice.address, bytecode_hex: tokenHex, gas_limit: 1_000 } }), {}, 0);
  });
await bench.run();
console.table(bench.table());
process.exit(0);
