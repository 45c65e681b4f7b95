import { Bench } from 'tinybench';
import { performance } from 'node:perf_hooks';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { plainSigningFields, txSigningMessage } from '../kernel/tx/signing.js';
import { loadProvider, PROVIDER_NAMES, type LoadedProvider } from '../kernel/crypto/providers/index.js';
import { VerifyPool } from '../kernel/crypto/verify-pool/index.js';

/**
 * ML-DSA-65 verification: single-core rate per available provider (tinybench), then pool
 * throughput (verifications/s) at pool sizes 1 and 2 for each provider, measured over bursts of
 * signatures submitted at once as a validator sees them (a block's transactions, a round's votes).
 * Run: npm run build && node dist/bench/verify.bench.js
 */
const keys = Array.from({ length: 8 }, (_, i) => nobleProvider.keygen(new Uint8Array(32).fill(i + 1)));
const items = keys.map((kp, i) => {
  const message = txSigningMessage('v4', plainSigningFields({ from: `chain:${String(i).padStart(15, '0')}.human`, to: 'chain:edcba9876543210.human', value: 1_000_000n, nonce: BigInt(i + 1), gas_price: undefined, gas_limit: undefined, data: undefined }), { chainId: 'bench-chain', baseFee: 1n });
  return { signature: nobleProvider.sign(message, kp.secretKey), message, publicKey: kp.publicKey };
});

const providers: LoadedProvider[] = [];
for (const name of PROVIDER_NAMES) {
  const r = loadProvider(name);
  if (r.ok) providers.push(r.provider);
  else console.log(`provider ${name} unavailable: ${r.reason}`);
}

const single = new Bench({ time: 2000 });
for (const p of providers) {
  let i = 0;
  single.add(`${p.name} verify (main thread)`, () => {
    const it = items[i++ % items.length]!;
    if (!p.verify(it.signature, it.message, it.publicKey)) throw new Error('bench signature did not verify');
  });
}
await single.run();

const rows: Record<string, string | number>[] = single.tasks.map((t) => {
  const r = t.result as { latency?: { mean: number; p99?: number }; throughput?: { mean: number }; error?: unknown } | undefined;
  if (r?.error) console.error(`${t.name} failed:`, r.error);
  return { task: t.name, 'mean ms': r?.latency?.mean?.toFixed(3) ?? '-', 'p99 ms': r?.latency?.p99?.toFixed(3) ?? '-', 'verifications/s': r?.throughput?.mean?.toFixed(0) ?? '-' };
});

/** Throughput of `pool` over bursts of `burst` requests, repeated until `ms` have passed. */
async function poolRate(pool: VerifyPool, burst: number, ms: number): Promise<number> {
  const batch = Array.from({ length: burst }, (_, i) => items[i % items.length]!);
  await pool.verifyMany(batch); // workers started and JIT-warm
  let done = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const res = await pool.verifyMany(batch);
    if (!res.every(Boolean)) throw new Error('pool rejected a valid signature');
    done += res.length;
  }
  return done / ((performance.now() - t0) / 1000);
}

for (const p of providers) {
  for (const size of [1, 2]) {
    const pool = new VerifyPool({ provider: p.name, size });
    try {
      const burst = p.name === 'noble' ? 200 : 1000;
      const rate = await poolRate(pool, burst, 3000);
      rows.push({ task: `${p.name} pool size ${size} (bursts of ${burst})`, 'mean ms': (1000 / rate).toFixed(3), 'p99 ms': '-', 'verifications/s': rate.toFixed(0) });
    } finally {
      await pool.close();
    }
  }
}
console.table(rows);
