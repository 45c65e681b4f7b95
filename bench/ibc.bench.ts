import { Bench } from 'tinybench';
import { ibcPlugin } from '../plugins/ibc/index.js';
import { verifyIbcHeader, nobleSignatureCheck, type IbcValidator, type SignatureCheck } from '../kernel/light-client/index.js';
import { selectProvider, type ProviderChoice } from '../kernel/crypto/select-provider.js';
import { CachingVerifier } from '../kernel/crypto/verifier.js';
import { labelledWallet, makeChain, signOperation, type Wallet } from '../test/helpers/chain-fixture.js';
import { counterpartyHeader, ibcSigners, inboundTransfer } from '../test/helpers/ibc-chain.js';

/**
 * IBC on one validator (issue 37): (a) what one `ibc_client_update` header costs to verify —
 * `verifyIbcHeader`, the kernel light-client check the ibc plugin runs in consensus — against a
 * counterparty of 4, 16, 64 and 150 validators of equal and of unequal power, with the provider a
 * node picks (CHAIN_CRYPTO_PROVIDER, default auto) and with noble (what the plugin passes today);
 * (b) proven receives per second: an in-memory chain with the ibc plugin, a channel and a client
 * of a synthetic counterparty, then `ibc_recv`s with their membership proofs admitted, then
 * executed in blocks.
 * `npm run build && node dist/bench/ibc.bench.js [receives]` (one at a time under `flock /tmp/heavy.lock` on a shared machine).
 */
const RECEIVES = Number(process.argv[2] ?? 400);
const { provider } = selectProvider((process.env.CHAIN_CRYPTO_PROVIDER ?? 'auto') as ProviderChoice);
const nodeCheck: SignatureCheck = (signature, message, publicKey) => provider.verify(signature, message, publicKey);
console.log(`signature verification: node default = ${provider.name}; noble = @noble/post-quantum`);

// (a) One update header of a counterparty whose whole set signs, checked against the same set trusted.
const CP = 'ibc-bench';
const SIZES = [4, 16, 64, 150];
const rows: Array<Record<string, string | number>> = [];
for (const n of SIZES) {
  for (const kind of ['equal', 'unequal'] as const) {
    // Unequal: powers 1..n, so the first signers in key order may or may not pass 2/3 early.
    const set = ibcSigners(Array.from({ length: n }, (_, i) => (kind === 'equal' ? 10 : i + 1)));
    const trusted: IbcValidator[] = set.map((s) => ({ public_key: s.public_key, power: s.power }));
    const { header } = await counterpartyHeader({ chainId: CP, height: 20, validators: set });
    let checked = 0;
    verifyIbcHeader(header, trusted, (s, m, k) => (checked++, nobleSignatureCheck(s, m, k)));
    for (const [name, check] of [[provider.name, nodeCheck], ['noble', nobleSignatureCheck]] as const) {
      // Few iterations at 150 validators under noble (~1 s each); enough samples for a mean.
      const bench = new Bench({ time: 0, iterations: n >= 64 ? 3 : 10, warmupIterations: 1 });
      bench.add('update', () => void verifyIbcHeader(header, trusted, check));
      await bench.run();
      const r = bench.tasks[0]!.result as { latency?: { mean: number; p99?: number }; error?: unknown } | undefined;
      if (r?.error) throw r.error;
      rows.push({ validators: n, powers: kind, 'signatures verified': checked, provider: name, 'mean ms': r!.latency!.mean.toFixed(2), 'p99 ms': r!.latency!.p99?.toFixed(2) ?? '-', 'updates/s': (1000 / r!.latency!.mean).toFixed(1) });
    }
  }
}
console.table(rows);

// (b) Proven receives on one validator, the signature provider a node picks verifying transactions.
const operator = labelledWallet('ibc-bench-operator');
const receiver = labelledWallet('ibc-bench-receiver');
const CH = 'ch-1';
const SET = ibcSigners([10, 10, 10, 10]);
const f = await makeChain({
  plugins: [ibcPlugin],
  pluginConfig: [{ name: 'ibc', options: { operator_pubkeys: operator.publicKeyHex } }],
  verifier: new CachingVerifier(provider),
  accounts: [operator, receiver].map((w) => ({ address: w.address, balance: 10n ** 12n })),
  mempool: { maxTxs: RECEIVES + 10, maxPerSender: RECEIVES + 10 },
});
let nonce = 1_980_000_000_000;
// An inbound packet's amount is the operation's signed value, as for every ibc operation but an ack.
const op = (w: Wallet, kind: string, body: Record<string, unknown>): Record<string, unknown> =>
  signOperation(w, { kind, actor: w.address, target: 'chain:system.ibc', nonce: ++nonce, value: typeof body['amount'] === 'number' ? body['amount'] : 0, body: { from: w.address, ...body }, version: 'v4' });
async function confirmed(kind: string, body: Record<string, unknown>): Promise<void> {
  const r = await f.chain.admitOperation(kind, body, {}, 0);
  await f.block();
  const stored = await f.chain.queries.getTx(r.tx_hash);
  if (stored?.receipt.status !== 'confirmed') throw new Error(`${kind}: ${stored?.receipt.error ?? 'not stored'}`);
}
await confirmed('ibc_channel_open', op(operator, 'ibc_channel_open', { channel: CH, port: 'transfer', counterparty_chain: CP, allowed_denoms: ['uatom'] }));
await confirmed('ibc_client_update', op(operator, 'ibc_client_update', { header: (await counterpartyHeader({ chainId: CP, height: 10, validators: SET })).header }));
const packets = Array.from({ length: RECEIVES }, (_, i) => inboundTransfer({ counterparty: CP, channel: CH, sequence: i + 1, receiver: receiver.address, amount: 1000 + i }));
const proven = await counterpartyHeader({ chainId: CP, height: 20, validators: SET, records: Object.fromEntries(packets.map((p) => [p.key, p.value])) });
await confirmed('ibc_client_update', op(operator, 'ibc_client_update', { header: proven.header }));
const bodies: Array<Record<string, unknown>> = [];
for (const p of packets) bodies.push(op(operator, 'ibc_recv', { ...p.body, proof_height: 20, proof: (await proven.prove(p.key)).proof }));

// Admission: ch-tx-v4 signature, operator, channel, client root and the membership proof, one after another.
const t0 = process.hrtime.bigint();
const hashes: string[] = [];
for (const b of bodies) hashes.push((await f.chain.admitOperation('ibc_recv', b, {}, 0)).tx_hash);
const admitSeconds = Number(process.hrtime.bigint() - t0) / 1e9;

// Execution: blocks proposed, validated and committed until the pool is empty (every rule and the proof again in each).
const t1 = process.hrtime.bigint();
let blocks = 0;
while (f.chain.mempool.size > 0) {
  await f.block();
  blocks++;
}
const execSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
let ok = 0;
for (const h of hashes) if ((await f.chain.queries.getTx(h))?.receipt.status === 'confirmed') ok++;
if (ok !== RECEIVES) throw new Error(`${RECEIVES - ok} of ${RECEIVES} receives not confirmed`);
console.log(`proven ibc_recv on one validator (membership proofs under a ${proven.root.slice(0, 10)}… root of ${RECEIVES + 1} records, tx signatures by ${provider.name}):`);
console.log(`  admitted: ${RECEIVES} in ${admitSeconds.toFixed(3)} s = ${(RECEIVES / admitSeconds).toFixed(0)} per second`);
console.log(`  executed: ${RECEIVES} in ${blocks} block(s), ${execSeconds.toFixed(3)} s (propose + validate + commit, in memory) = ${(RECEIVES / execSeconds).toFixed(0)} per second`);
