import { Bench } from 'tinybench';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { sha3 } from '../kernel/crypto/hash.js';
import { plainSigningFields, txSigningMessage } from '../kernel/tx/signing.js';
import { openChainStores } from '../kernel/store/chain-stores.js';
import { FileTxTextLog } from '../kernel/store/tx-text-log.js';
import { makeChain, signTransfer, wallet } from '../test/helpers/chain-fixture.js';

/**
 * Micro-benchmarks of the hot paths: ML-DSA-65 sign and verify, SHA3-256, and committing a block
 * of signed transfers to LevelDB (propose + validate + execute + state root + atomic write).
 * State-root updates at 10^3..10^6 keys: bench/state-tree.bench.ts.
 */
const kp = nobleProvider.keygen(new Uint8Array(32).fill(3));
const msg = txSigningMessage('v4', plainSigningFields({ from: 'chain:0123456789abcde.human', to: 'chain:edcba9876543210.human', value: 1_000_000n, nonce: 1n, gas_price: undefined, gas_limit: undefined, data: undefined }), { chainId: 'bench-chain', baseFee: 1n });
const sig = nobleProvider.sign(msg, kp.secretKey);
const kib = new Uint8Array(1024).fill(7);

const crypto = new Bench({ time: 2000 });
crypto
  .add('ML-DSA-65 sign', () => void nobleProvider.sign(msg, kp.secretKey))
  .add('ML-DSA-65 verify', () => void nobleProvider.verify(sig, msg, kp.publicKey))
  .add('SHA3-256 of 1 KiB', () => void sha3(kib));
await crypto.run();

// Block commit: blocks of 100 transfers from 100 funded senders, pre-signed outside the timing.
const dir = mkdtempSync(join(tmpdir(), 'bench-commit-'));
const senders = Array.from({ length: 100 }, (_, i) => wallet(i + 1));
const recipient = wallet(250).address;
const f = await makeChain({ kv: (await openChainStores(dir)).kv, textLog: await FileTxTextLog.open(join(dir, 'txtext')), accounts: senders.map((w) => ({ address: w.address, balance: 10n ** 12n })) });
const BLOCKS = 12;
const presigned = Array.from({ length: BLOCKS + 2 }, (_, b) => senders.map((w) => signTransfer(w, { to: recipient, value: 1, nonce: b + 1 })));
let next = 0;
const commit = new Bench({ iterations: BLOCKS, time: 0, warmup: false });
commit.add(
  'block commit (100 transfers, text log + LevelDB, sync)',
  async () => {
    await f.block();
  },
  {
    beforeEach: async () => {
      // Admission (and its one signature verify per tx) happens before the block; the verify
      // cache then spares the block's validation a second verify, as in the node.
      for (const body of presigned[next++]!) await f.chain.admit(body, 0);
    },
  },
);
await commit.run();

const rows = [...crypto.tasks, ...commit.tasks].map((t) => {
  const r = t.result as { latency?: { mean: number; p99?: number }; throughput?: { mean: number }; error?: unknown } | undefined;
  if (r?.error) console.error(`${t.name} failed:`, r.error);
  return { task: t.name, 'mean ms': r?.latency?.mean?.toFixed(3), 'p99 ms': r?.latency?.p99?.toFixed(3), 'ops/s': r?.throughput?.mean?.toFixed(1) };
});
console.table(rows);
await f.close();
rmSync(dir, { recursive: true, force: true });
