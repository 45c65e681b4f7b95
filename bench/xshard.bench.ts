import { Bench } from 'tinybench';
import { makeSigners, headerOf, certify, served, stateOf } from '../test/helpers/light-chain.js';
import { nobleSignatureCheck, sortValidators, TWO_THIRDS, verifyCommit, verifyStateProof, type SignatureCheck, type TrustedValidators } from '../kernel/light-client/index.js';
import { bytesOfHex } from '../kernel/light-client/bytes.js';
import { utf8Bytes } from '../kernel/codec/utf8.js';
import { canonicalJson } from '../kernel/codec/json.js';
import { selectProvider, type ProviderChoice } from '../kernel/crypto/select-provider.js';
import { setSigningChainId, signTransfer, walletOnShard } from '../test/helpers/chain-fixture.js';
import { getJson, postJson, until } from '../test/helpers/node-process.js';

/**
 * Cross-shard transfers (issue 38, decisions.md §75–§77).
 * (a) Bundle verifications per second on one core: a lock bundle (§75) checked as a destination
 *     checks it — the source header certified by more than 2/3 of the trusted set's power with
 *     the set equal to the client's (§72), then the record's state proof under the header's
 *     root — for source sets of 4 and 7 validators, all signing, with the provider a node picks
 *     (CHAIN_CRYPTO_PROVIDER, default auto: pqclean when built) and with noble.
 * (b) `--devnet <gateway URL>`: against a running `npm run devnet -- --shards 2` (with its
 *     relayer), one transfer from shard 0 to shard 1 through the gateway, and the source blocks
 *     from its lock to the destination's receipt (commit) and to the lock's settlement (ack).
 * `npm run build && node dist/bench/xshard.bench.js [--devnet http://127.0.0.1:3000]`
 * (one at a time under `flock /tmp/heavy.lock` on a shared machine).
 */
const devnetAt = process.argv.indexOf('--devnet');
if (devnetAt >= 0) await devnetRun(process.argv[devnetAt + 1] ?? 'http://127.0.0.1:3000');
else await bundleRun();

async function bundleRun(): Promise<void> {
  const { provider } = selectProvider((process.env.CHAIN_CRYPTO_PROVIDER ?? 'auto') as ProviderChoice);
  const nodeCheck: SignatureCheck = (s, m, k) => provider.verify(s, m, k);
  console.log(`signature verification: node default = ${provider.name}; noble = @noble/post-quantum`);
  const CHAIN = 'xshard-bench';
  const rows: Array<Record<string, string>> = [];
  for (const n of [4, 7]) {
    const set = makeSigners(Array.from({ length: n }, () => 10), 1);
    const trusted: TrustedValidators = { chainId: CHAIN, validators: sortValidators(set) };
    const id = '0x' + 'ab'.repeat(32);
    const lock = { id, from: 'chain:0123456789abcde.human', to: 'chain:307f4559431e680.human', value: 1_000_000, source_shard: 0, dest_shard: 1, lock_height: 40, deadline_height: 50, status: 'locked' };
    const key = `xshard/lock/${id}`;
    const state = await stateOf({ [key]: canonicalJson(lock), 'acct/chain:0123456789abcde.human': JSON.stringify({ balance: 1, nonce: 1, tx_count: 1 }), 'xshard/lock/0x00': '{}' });
    const header = headerOf({ chainId: CHAIN, height: 42, prevStateRoot: state.root, validators: set });
    const bundle = { lock, proof: { height: 41, state_root: state.root, entries: [await state.entry(key)], header, certificate: certify(header, set), validators: served(set) } };
    const verifyBundle = (check: SignatureCheck): void => {
      const p = bundle.proof;
      const commit = verifyCommit({ header: p.header, certificate: p.certificate, validators: p.validators }, trusted, { trustLevel: TWO_THIRDS, allowSetChange: false, verify: check });
      if (commit.header.height !== p.height + 1 || p.header['prev_state_root'] !== p.state_root || p.header['shard'] !== bundle.lock.source_shard) throw new Error('header does not fit the bundle');
      const entry = p.entries[0] as { key: string; value_hex: string; proof: unknown };
      const value = bytesOfHex(entry.value_hex)!;
      if (entry.key !== key || !verifyStateProof(bytesOfHex(p.state_root, 32)!, utf8Bytes(entry.key), value, entry.proof)) throw new Error('state proof');
      if (Buffer.from(value).toString('utf8') !== canonicalJson(bundle.lock)) throw new Error('record mismatch');
    };
    for (const [name, check] of [[provider.name, nodeCheck], ['noble', nobleSignatureCheck]] as const) {
      const bench = new Bench({ time: 2000, warmupIterations: 3 });
      bench.add('bundle', () => verifyBundle(check));
      await bench.run();
      const r = bench.tasks[0]!.result as { latency?: { mean: number; p99?: number }; throughput?: { mean: number }; error?: unknown } | undefined;
      if (r?.error) throw r.error;
      rows.push({ 'source set': `${n} validators`, provider: name, 'mean ms': r?.latency?.mean.toFixed(3) ?? '-', 'p99 ms': r?.latency?.p99?.toFixed(3) ?? '-', 'bundles/s (one core)': r?.throughput?.mean.toFixed(1) ?? '-' });
      if (name === 'noble' && provider.name === 'noble') break;
    }
  }
  console.table(rows);
}

/** One cross-shard transfer through the gateway, timed in source-shard blocks (§74–§77 routes only). */
async function devnetRun(gateway: string): Promise<void> {
  const get = (path: string): Promise<{ status: number; body: Record<string, unknown> }> => getJson(`${gateway}${path}`);
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await postJson(`${gateway}${path}`, body);
    if (res.status !== 200) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  // §77: the gateway's /state/root lists every shard's head height.
  const sourceHeight = async (): Promise<number> => ((await get('/api/v1/state/root')).body['shard_heights'] as number[])[0]!;
  const WAIT_MS = 120_000;
  // The gateway serves the network's status (`/api/v1/status` is a node's own).
  setSigningChainId(String((await get('/api/v1/network/status')).body['chain_id']));
  const sender = walletOnShard(0, 2, 7);
  const receiver = walletOnShard(1, 2, 7);
  // The sender is the same on every run: funded once (the faucet's cooldown refuses a second request).
  const balance = Number((await get(`/api/v1/accounts/${sender.address}`)).body['balance'] ?? 0);
  if (balance < 1_000_000) {
    const funded = await post('/api/v1/faucet', { address: sender.address, public_key: sender.publicKeyHex });
    await until('the faucet transfer', async () => ((await get(`/api/v1/transactions/${String(funded['tx_hash'])}`)).body['status'] === 'confirmed' ? true : undefined), WAIT_MS);
  }
  const nonce = Number((await get(`/api/v1/accounts/${sender.address}`)).body['next_nonce'] ?? 1);
  const sent = await post('/api/v1/transactions', signTransfer(sender, { to: receiver.address, value: 1000, nonce }));
  const id = String(sent['tx_hash']);
  const lock = await until('the lock', async () => {
    const r = await get(`/api/v1/cross-shard/transfers/${id}`);
    return r.status === 200 ? r.body : undefined;
  }, WAIT_MS);
  const lockHeight = Number(lock['lock_height']);
  const committedAt = await until('the receipt at the destination', async () => ((await get(`/api/v1/cross-shard/receipts/0/${id}`)).status === 200 ? sourceHeight() : undefined), WAIT_MS);
  const ackedAt = await until('the lock settled at the source', async () => {
    const r = await get(`/api/v1/cross-shard/transfers/${id}`);
    return r.body['status'] === 'committed' ? sourceHeight() : undefined;
  }, WAIT_MS);
  console.table([{ transfer: id.slice(0, 18) + '…', lock_height: lockHeight, 'source blocks lock → commit': committedAt - lockHeight, 'source blocks lock → ack': ackedAt - lockHeight }]);
}
