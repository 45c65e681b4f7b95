import { Bench } from 'tinybench';
import { makeSigners, provenAccount } from '../test/helpers/light-chain.js';
import { ONE_THIRD, sortValidators, verifyProvenRead, verifyStateProof, type TrustedValidators } from '../kernel/light-client/index.js';
import { bytesOfHex } from '../kernel/light-client/bytes.js';
import { utf8Bytes } from '../kernel/codec/utf8.js';

/**
 * What a client pays to check a proven read (decisions.md §85) in Node, with the light client's
 * own pure-JavaScript crypto (noble: what the browser module runs too): the whole check of a
 * proven account read against a trusted set of 4, 7 and 16 validators (all signing), the same
 * check across a set change (both sets tallied), and the Merkle part alone.
 * Run: npm run build && node dist/bench/light-client.bench.js
 */
const CHAIN = 'bench-chain';
const bench = new Bench({ time: 3000 });

for (const n of [4, 7, 16]) {
  const set = makeSigners(Array.from({ length: n }, () => 10), 1);
  const trusted: TrustedValidators = { chainId: CHAIN, validators: sortValidators(set) };
  const answer = await provenAccount({ chainId: CHAIN, height: 100, set });
  bench.add(`proven account read, ${n} validators`, () => {
    verifyProvenRead(answer, trusted, { kind: 'account', trustLevel: ONE_THIRD });
  });
  if (n === 4) {
    const grown = [...set, ...makeSigners([10], 90, 'j')];
    const changed = await provenAccount({ chainId: CHAIN, height: 100, set: grown });
    bench.add('proven account read across a set change, 4 -> 5 validators', () => {
      const read = verifyProvenRead(changed, trusted, { kind: 'account', trustLevel: ONE_THIRD });
      if (!read.commit.setChanged) throw new Error('expected a set change');
    });
    const proof = (answer['proof'] as { state_root: string; entries: Array<{ key: string; value_hex: string; proof: unknown }> });
    const entry = proof.entries[0]!;
    const root = bytesOfHex(proof.state_root, 32)!;
    const value = bytesOfHex(entry.value_hex)!;
    bench.add('state proof alone (membership)', () => {
      if (!verifyStateProof(root, utf8Bytes(entry.key), value, entry.proof)) throw new Error('proof did not verify');
    });
  }
}

await bench.run();
console.table(
  bench.tasks.map((t) => {
    const r = t.result as { latency?: { mean: number; p99?: number }; throughput?: { mean: number }; error?: unknown } | undefined;
    if (r?.error) console.error(`${t.name} failed:`, r.error);
    return { task: t.name, 'mean ms': r?.latency?.mean?.toFixed(3) ?? '-', 'p99 ms': r?.latency?.p99?.toFixed(3) ?? '-', 'checks/s': r?.throughput?.mean?.toFixed(1) ?? '-' };
  }),
);
