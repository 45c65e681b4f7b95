import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { signOperation, signTransfer, wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, startNodeProcess, until, waitConfirmed, type NodeHandle } from '../helpers/node-process.js';
import { verifyMerkleProof } from '../../kernel/crypto/merkle.js';
import { parseHex } from '../../kernel/codec/hex.js';

const alice = wallet(11);
const bob = wallet(12);
const carol = wallet(13);

/**
 * The single-validator node as a client sees it: a real `chain node` process on loopback, run
 * once per HTTP backend. Faucet → confirmed credit → v2 and v3 transfers → balances, fees,
 * nonces, *_human strings, block and proof fields → every bad input with its status.
 */
for (const backend of ['uws', 'node'] as const) {
  describe(`node RPC (${backend} backend)`, () => {
    let node: NodeHandle;
    before(async () => {
      node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: backend, CHAIN_RPC_RATE_LIMIT: '100000' } });
    });
    after(async () => node.stop());

    test('health, status and metrics answer with the spec fields', async () => {
      const h = await getJson(`${node.url}/health`);
      assert.equal(h.status, 200);
      for (const f of ['status', 'height', 'round', 'mempool', 'peers', 'tps', 'total_txs', 'validator_count', 'bft_quorum', 'bft_ready', 'finality_ms']) assert.ok(f in h.body, `health has ${f}`);
      assert.equal(h.body.validator_count, 1);
      assert.equal(h.body.bft_quorum, 1);
      for (const f of ['height', 'round', 'mempool', 'peers', 'tps', 'total_txs', 'validator_count', 'bft_quorum']) assert.ok(Number.isInteger(h.body[f]), `${f} is an integer`);
      const s = await getJson(`${node.url}/api/v1/status`);
      assert.equal(s.body.network, 'devnet');
      const shards = await getJson(`${node.url}/api/v1/shards`);
      assert.equal(shards.status, 200);
      assert.equal(shards.body.n_shards, 1);
      assert.equal(shards.body.shard_id, 0);
      const [own, ...others] = shards.body.shards as Array<Record<string, unknown>>;
      assert.equal(others.length, 0, 'a node lists the one shard it serves');
      assert.equal(own!.shard, 0);
      assert.ok(Number.isInteger(own!.height) && (own!.height as number) >= (h.body.height as number));
      for (const f of ['state_root', 'block_hash']) assert.match(own![f] as string, /^(0x[0-9a-f]{64})?$/, f);
      const m = await fetch(`${node.url}/metrics`);
      assert.match(m.headers.get('content-type') ?? '', /text\/plain/);
      const text = await m.text();
      assert.match(text, /^chain_height \d+/m);
      assert.match(text, /^verifications_total \d+/m);
      // The state tree's upper levels are read in beside everything else after a start (tree-warm-up.ts).
      await until('the state tree warm-up', async () => (node.logs.some((l) => l.includes("state tree's upper levels read into memory")) ? true : undefined));
      // So is the chain store's scan of its keys into its filter (presence-filtered-store.ts).
      await until('the key scan', async () => (node.logs.some((l) => l.includes("chain store's key filter ready")) ? true : undefined));
      const warmed = await (await fetch(`${node.url}/metrics`)).text();
      assert.match(warmed, /^chain_tree_warming 0$/m);
      assert.match(warmed, /^chain_store_key_scanning 0$/m);
      // Plugins ask at every height what falls due; an unchanged range is answered from the scan cache (state-scan-cache.ts).
      const scans = (metrics: string, answered: string): number => Number(new RegExp(`^chain_state_scans_total\\{answered="${answered}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? NaN);
      assert.ok(scans(warmed, 'store') > 0, 'a scan the cache did not hold went to the store');
      await until('a scan answered from the cache', async () => (scans(await (await fetch(`${node.url}/metrics`)).text(), 'cache') > 0 ? true : undefined));
      for (const store of ['chain', 'tree']) {
        assert.match(warmed, new RegExp(`^chain_store_point_reads_total\\{store="${store}"\\} \\d+$`, 'm'), store);
        assert.match(warmed, new RegExp(`^chain_store_compaction_bytes_total\\{store="${store}",direction="written"\\} \\d+$`, 'm'), store);
      }
      assert.ok(node.logs.some((l) => l.includes(`(${backend} backend)`)), 'backend choice is logged');
    });

    test('faucet, v2 and v3 transfers: balances, fees, nonces, human strings, proofs', async () => {
      const f = await postJson(`${node.url}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      assert.deepEqual(Object.keys(f.body).sort(), ['address', 'amount', 'amount_human', 'block', 'note', 'status', 'success', 'tx_hash']);
      assert.equal(f.body.success, true);
      assert.equal(f.body.status, 'pending');
      assert.equal(f.body.amount, 50_000_000);
      assert.equal(f.body.amount_human, '50 COIN');
      assert.equal((await waitConfirmed(node.url, f.body.tx_hash as string)).status, 'confirmed');

      const acct0 = await getJson(`${node.url}/api/v1/accounts/${alice.address}`);
      assert.equal(acct0.body.balance, 50_000_000);
      assert.equal(acct0.body.balance_human, '50 COIN');
      assert.equal(acct0.body.next_nonce, 1);
      assert.equal(acct0.body.verified, true);

      const v2 = await postJson(`${node.url}/api/v1/transactions`, signTransfer(alice, { to: bob.address, value: 1_000_000, nonce: 1 }));
      assert.equal(v2.status, 200, JSON.stringify(v2.body));
      assert.equal(v2.body.status, 'pending');
      assert.equal(v2.body.sender_balance, 50_000_000);
      assert.equal(typeof v2.body.estimated_block, 'number');
      const v3 = await postJson(`${node.url}/api/v1/transactions`, signTransfer(alice, { to: carol.address, value: 2_000_000, nonce: 2, gas_price: 2, data: '{"memo":"hi"}', version: 'v3' }));
      assert.equal(v3.status, 200, JSON.stringify(v3.body));

      const t2 = await waitConfirmed(node.url, v2.body.tx_hash as string);
      const t3 = await waitConfirmed(node.url, v3.body.tx_hash as string);
      assert.equal(t2.status, 'confirmed');
      assert.equal(t2.gas, 21);
      assert.equal(t2.fee, 21);
      assert.equal(t2.fee_human, '0.000021 COIN');
      assert.equal(t2.value_human, '1 COIN');
      assert.equal(t3.fee, 42);
      assert.equal(t3.gas_price, 2);
      for (const field of ['hash', 'status', 'gas', 'fee', 'fee_human', 'value_human', 'from', 'to', 'value', 'gas_price', 'shard', 'timestamp', 'block']) assert.ok(field in t2, `transaction has ${field}`);

      const a = await getJson(`${node.url}/api/v1/accounts/${alice.address}`);
      assert.equal(a.body.balance, 50_000_000 - 1_000_000 - 21 - 2_000_000 - 42);
      assert.equal(a.body.nonce, 2);
      assert.equal(a.body.next_nonce, 3);
      assert.equal(a.body.tx_count, 2);
      assert.equal((await getJson(`${node.url}/api/v1/accounts/${bob.address}`)).body.balance, 1_000_000);
      assert.equal((await getJson(`${node.url}/api/v1/accounts/${carol.address}`)).body.balance_human, '2 COIN');

      const totals = await getJson(`${node.url}/api/v1/accounts/${alice.address}/totals`);
      assert.equal(totals.body.sent, 3_000_000);
      assert.equal(totals.body.received, 50_000_000);

      const history = await getJson(`${node.url}/api/v1/accounts/${alice.address}/transactions`);
      assert.equal((history.body.transactions as unknown[]).length, 3);
      assert.equal((history.body.transactions as Array<{ hash: string }>)[0]!.hash, v3.body.tx_hash, 'newest first');
      // A type filter applies before the page is cut, and total counts what matches.
      const credits = await getJson(`${node.url}/api/v1/transactions?address=${alice.address}&type=faucet&limit=1`);
      assert.deepEqual((credits.body.transactions as Array<{ hash: string; type: string }>).map((t) => [t.hash, t.type]), [[f.body.tx_hash, 'faucet']]);
      assert.equal(credits.body.total, 1);
      assert.equal(credits.body.has_more, false);
      const older = await getJson(`${node.url}/api/v1/transactions?address=${alice.address}&type=transfer&limit=1&offset=1`);
      assert.deepEqual((older.body.transactions as Array<{ hash: string }>).map((t) => t.hash), [v2.body.tx_hash]);
      assert.equal(older.body.total, 2);
      assert.equal(older.body.has_more, false);
      const junk = await getJson(`${node.url}/api/v1/transactions?type=${encodeURIComponent('<script>')}`);
      assert.equal(junk.status, 400, 'a type that names no transaction type is refused before any walk');
      assert.match(String(junk.body.error), /is not a transaction type/);

      const block = await getJson(`${node.url}/api/v1/blocks/${t2.block}`);
      for (const field of ['height', 'hash', 'parent_hash', 'proposer', 'tx_root', 'state_root', 'tx_count', 'gas_used', 'base_fee', 'fees_burned', 'shard', 'round', 'timestamp']) assert.ok(field in block.body, `block has ${field}`);
      assert.equal(block.body.proposer, 'chain:validator-0.node');
      const btx = await getJson(`${node.url}/api/v1/blocks/${t2.block}/transactions`);
      assert.ok((btx.body.transactions as Array<{ hash: string }>).some((t) => t.hash === v2.body.tx_hash));

      const proof = await getJson(`${node.url}/api/v1/tx/${v2.body.tx_hash}/proof`);
      assert.equal(proof.status, 200);
      assert.equal(proof.body.block_height, t2.block);
      assert.equal(proof.body.tx_root, block.body.tx_root);
      assert.ok(verifyMerkleProof(parseHex(proof.body.tx_root as string)!, parseHex(v2.body.tx_hash as string)!, proof.body.leaf_index as number, proof.body.leaf_count as number, (proof.body.proof as string[]).map((p) => parseHex(p)!)));

      const gas = await getJson(`${node.url}/api/v1/gas/estimate`);
      assert.equal(gas.body.estimated_transfer, 21);
      assert.equal(gas.body.gas_contract_call, 50);
      assert.ok((gas.body.total_burned as number) >= 42);
      const root = await getJson(`${node.url}/api/v1/state/root`);
      assert.match(root.body.global_root as string, /^0x[0-9a-f]{64}$/);
      assert.equal(root.body.n_shards, 1);
    });

    test('blocks list: newest first, default 20, capped at 100', async () => {
      const r = await getJson(`${node.url}/api/v1/blocks?limit=1000`);
      assert.equal(r.body.limit, 100);
      const blocks = r.body.blocks as Array<{ height: number }>;
      assert.ok(blocks.length >= 2);
      assert.ok(blocks[0]!.height > blocks[1]!.height);
      assert.equal((await getJson(`${node.url}/api/v1/blocks`)).body.limit, 20);
      assert.equal((await getJson(`${node.url}/api/v1/blocks?limit=abc`)).status, 400);
      assert.equal((await getJson(`${node.url}/api/v1/transactions?limit=999`)).body.limit, 200);
    });

    test('validators and a block\'s transactions carry the §20 paging fields (limit capped, page 1-based)', async () => {
      const v = await getJson(`${node.url}/api/v1/validators`);
      assert.equal(v.status, 200);
      assert.deepEqual([v.body.total, v.body.limit, v.body.offset, v.body.has_more], [1, 100, 0, false]);
      assert.deepEqual((v.body.validators as Array<{ address: string }>).map((x) => x.address), ['chain:validator-0.node']);
      assert.equal(v.body.count, 1, 'the fields the list had stay');
      assert.equal(v.body.total_staked, 10_000_000_000);
      const capped = await getJson(`${node.url}/api/v1/validators?limit=1000`);
      assert.equal(capped.body.limit, 100, 'a limit above the cap is capped, not refused');
      const past = await getJson(`${node.url}/api/v1/validators?limit=1&page=2`);
      assert.deepEqual([past.body.offset, (past.body.validators as unknown[]).length, past.body.has_more, past.body.total], [1, 0, false, 1]);
      assert.equal(past.body.total_staked, 10_000_000_000, 'total_staked is the whole set\'s, whatever the page');
      for (const bad of ['limit=0', 'offset=-1', 'page=0', 'limit=x']) assert.equal((await getJson(`${node.url}/api/v1/validators?${bad}`)).status, 400, bad);

      // Faucet credits sent together until one block holds at least two transactions.
      let height = 0;
      for (let round = 0; height === 0 && round < 10; round++) {
        const credits = await Promise.all([0, 1, 2, 3].map((i) => wallet(100 + round * 4 + i + (backend === 'uws' ? 0 : 50))).map((w) => postJson(`${node.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex, amount: 1 })));
        const confirmed = await Promise.all(credits.map((c) => waitConfirmed(node.url, c.body.tx_hash as string)));
        const counts = new Map<number, number>();
        for (const t of confirmed) counts.set(t.block as number, (counts.get(t.block as number) ?? 0) + 1);
        height = [...counts].find(([, n]) => n >= 2)?.[0] ?? 0;
      }
      assert.ok(height > 0, 'four credits sent at once never shared a block');
      const whole = await getJson(`${node.url}/api/v1/blocks/${height}/transactions`);
      const all = whole.body.transactions as Array<{ hash: string }>;
      const n = (await getJson(`${node.url}/api/v1/blocks/${height}`)).body.tx_count as number;
      assert.deepEqual([whole.body.total, whole.body.count, whole.body.limit, whole.body.offset, whole.body.has_more, all.length], [n, n, 200, 0, false, n]);
      const first = await getJson(`${node.url}/api/v1/blocks/${height}/transactions?limit=1`);
      assert.deepEqual([(first.body.transactions as Array<{ hash: string }>)[0]!.hash, first.body.total, first.body.has_more], [all[0]!.hash, n, true]);
      const second = await getJson(`${node.url}/api/v1/blocks/${height}/transactions?limit=1&page=2`);
      assert.deepEqual([(second.body.transactions as Array<{ hash: string }>)[0]!.hash, second.body.offset, second.body.has_more], [all[1]!.hash, 1, n > 2]);
      assert.equal((await getJson(`${node.url}/api/v1/blocks/${height}/transactions?limit=999`)).body.limit, 200, 'part 2: transactions cap at 200');
      assert.equal((await getJson(`${node.url}/api/v1/blocks/${height}/transactions?offset=x`)).status, 400);
    });

    test('models/register: accuracy is a fraction with at most 4 decimals, judged before the role (decisions.md §92)', async () => {
      const owner = wallet(99); // the validator's key (test/helpers: makeChainDir), which owns chain:validator-0.node
      const outsider = wallet(30 + (backend === 'uws' ? 0 : 1));
      for (const w of [owner, outsider]) await waitConfirmed(node.url, (await postJson(`${node.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex })).body.tx_hash as string);
      let clock = Date.now();
      const register = (w: typeof owner, from: string, accuracy: unknown, version: string) => {
        const body = { from, name: 'conformance', version, weights_hash: `0x${'cd'.repeat(32)}`, architecture: 'logistic', params_count: 8, accuracy };
        return postJson(`${node.url}/api/v1/models/register`, signOperation(w, { actor: from, target: 'chain:models.registry', nonce: ++clock, body }));
      };
      const validator = 'chain:validator-0.node';
      for (const [who, from] of [[owner, validator], [outsider, outsider.address]] as const) {
        for (const bad of [0.12345, 1.5, -0.1, '0.9', 95, null]) {
          const r = await register(who, from, bad, '1.0.0');
          assert.equal(r.status, 400, `${from} accuracy ${JSON.stringify(bad)}: ${JSON.stringify(r.body)}`);
          assert.match(r.body.error as string, /accuracy/);
        }
      }
      const notValidator = await register(outsider, outsider.address, 0.95, '1.0.0');
      assert.equal(notValidator.status, 403, 'a well-formed body from a non-validator meets the role rule');
      for (const [accuracy, version] of [[0.9512, '1.0.0'], [0.0029, '1.0.1'], [1, '1.0.2'], [0, '1.0.3']] as const) {
        const ok = await register(owner, validator, accuracy, version);
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        const tx = await waitConfirmed(node.url, ok.body.tx_hash as string);
        assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
        const id = (tx.events as Array<{ type: string; data: { id: string } }>).find((e) => e.type === 'model_registered')!.data.id;
        assert.equal((await getJson(`${node.url}/api/v1/models/registry/${id}`)).body.accuracy, accuracy);
      }
    });

    test('bad inputs are answered with the spec status and a clear message', async () => {
      const fresh = wallet(20 + (backend === 'uws' ? 0 : 1));
      await waitConfirmed(node.url, (await postJson(`${node.url}/api/v1/faucet`, { address: fresh.address, public_key: fresh.publicKeyHex })).body.tx_hash as string);
      const good = signTransfer(fresh, { to: bob.address, value: 10, nonce: 1 });

      const badSig = await postJson(`${node.url}/api/v1/transactions`, { ...good, signature: (good.signature as string).replace(/^.{4}/, 'ffff') });
      assert.equal(badSig.status, 401);
      assert.match(badSig.body.error as string, /invalid signature/);

      const unbound = await postJson(`${node.url}/api/v1/transactions`, { ...signTransfer(carol, { to: bob.address, value: 10, nonce: 1 }), from: fresh.address });
      assert.equal(unbound.status, 401);
      assert.match(unbound.body.error as string, /not bound/);

      const str = await postJson(`${node.url}/api/v1/transactions`, { ...good, value: '10' });
      assert.equal(str.status, 400);
      assert.match(str.body.error as string, /from\/to\/value/);

      const low = await postJson(`${node.url}/api/v1/transactions`, signTransfer(fresh, { to: bob.address, value: 10, nonce: 1, gas_price: 0, version: 'v3' }));
      assert.equal(low.status, 400);
      assert.match(low.body.error as string, /gas_price 0 is below base_fee 1/);

      const ok = await postJson(`${node.url}/api/v1/transactions`, good);
      assert.equal(ok.status, 200);
      await waitConfirmed(node.url, ok.body.tx_hash as string);
      const reused = await postJson(`${node.url}/api/v1/transactions`, signTransfer(fresh, { to: bob.address, value: 11, nonce: 1 }));
      assert.equal(reused.status, 400);
      assert.match(reused.body.error as string, /nonce 1 is not the next nonce/);

      const big = await fetch(`${node.url}/api/v1/transactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: 'x'.repeat(1_100_000) }) });
      assert.equal(big.status, 413);
      assert.match(((await big.json()) as { error: string }).error, /too large/);

      const malformed = await postJson(`${node.url}/api/v1/transactions`, '{"from": ');
      assert.equal(malformed.status, 400);
      assert.match(malformed.body.error as string, /malformed JSON/);

      assert.equal((await getJson(`${node.url}/api/v1/blocks/999999`)).status, 404);
      assert.equal((await getJson(`${node.url}/api/v1/transactions/0x${'ab'.repeat(32)}`)).status, 404);
      assert.equal((await getJson(`${node.url}/api/v1/transactions/nothex`)).status, 400);
      assert.equal((await getJson(`${node.url}/api/v1/accounts/not-an-address`)).status, 400);
      const unknown = await getJson(`${node.url}/api/v1/does-not-exist`);
      assert.equal(unknown.status, 404);
      assert.equal(typeof unknown.body.error, 'string');

      const faucetBad = await postJson(`${node.url}/api/v1/faucet`, { address: fresh.address, public_key: 'abc' });
      assert.equal(faucetBad.status, 400);
      const stolen = await postJson(`${node.url}/api/v1/faucet`, { address: fresh.address, public_key: carol.publicKeyHex });
      assert.equal(stolen.status, 409, 'a bound address cannot be re-bound to another key');
      assert.match(stolen.body.error as string, /already bound/);
    });
  });
}

describe('network modes and limits', () => {
  test('faucet and server-side derivation are refused on mainnet (403)', async () => {
    const node = await startNodeProcess({ network: 'mainnet', env: { CHAIN_HTTP_BACKEND: 'node' } });
    try {
      // configs/mainnet.json lists no faucet plugin; the kernel still answers part 2's 403.
      const r = await postJson(`${node.url}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
      assert.equal(r.status, 403);
      assert.match(r.body.error as string, /test networks only/);
      const d = await postJson(`${node.url}/api/v1/wallet/derive-address`, { words: 'abandon' });
      assert.equal(d.status, 403);
      assert.match(d.body.error as string, /off on mainnet/);
    } finally {
      await node.stop();
    }
    const forced = await startNodeProcess({ network: 'testnet', env: { CHAIN_ENV: 'mainnet', CHAIN_HTTP_BACKEND: 'node' } });
    try {
      const r = await postJson(`${forced.url}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
      assert.equal(r.status, 403);
      assert.match(r.body.error as string, /test networks only/);
      const d = await postJson(`${forced.url}/api/v1/wallet/derive-address`, { words: 'abandon' });
      assert.equal(d.status, 403);
    } finally {
      await forced.stop();
    }
  });

  test('FAUCET_AMOUNT is the amount of a faucet request that names none', async () => {
    const node = await startNodeProcess({ env: { FAUCET_AMOUNT: '7 COIN' } });
    try {
      const r = await postJson(`${node.url}/api/v1/faucet`, { address: carol.address, public_key: carol.publicKeyHex });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.amount, 7_000_000);
      assert.equal(r.body.amount_human, '7 COIN');
    } finally {
      await node.stop();
    }
  });

  test('a burst above CHAIN_RPC_RATE_LIMIT gets 429', async () => {
    const node = await startNodeProcess({ env: { CHAIN_RPC_RATE_LIMIT: '20' } });
    try {
      const statuses = await Promise.all(Array.from({ length: 60 }, () => fetch(`${node.url}/health`).then((r) => r.status)));
      assert.ok(statuses.includes(429), `statuses: ${statuses.join(',')}`);
      assert.ok(statuses.includes(200));
    } finally {
      await node.stop();
    }
  });

  test('server-side derivation works on the devnet with the switch on', async () => {
    const node = await startNodeProcess({ env: { CHAIN_ALLOW_SERVER_DERIVE: 'true' } });
    try {
      const words = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art';
      const r = await postJson(`${node.url}/api/v1/wallet/derive-address`, { words });
      assert.equal(r.status, 200);
      assert.match(r.body.address as string, /^chain:[0-9a-f]{15}\.human$/);
      assert.equal((await postJson(`${node.url}/api/v1/wallet/derive-address`, { words: 'not a phrase' })).status, 400);
    } finally {
      await node.stop();
    }
  });
});
