import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, VALIDATOR_KEY, wallet } from '../../test/helpers/chain-fixture.js';
import { deriveAddress } from '../crypto/address.js';
import { accountsReader } from '../state/accounts.js';
import { ChainError } from '../errors.js';
import { definePlugin } from '../host/plugin.js';
import { faucetPlugin } from '../../plugins/faucet/index.js';
import { badRequest } from '../errors.js';
import { canonicalJson } from '../codec/json.js';
import { sha3Hex0x } from '../crypto/hash.js';
import { CachingVerifier, type SignatureVerifier } from '../crypto/verifier.js';
import { nobleProvider } from '../crypto/noble-provider.js';

const alice = wallet(1);
const bob = wallet(2);
const COIN = 1_000_000n;

async function balance(chain: import('./chain.js').Chain, address: string): Promise<bigint> {
  return (await accountsReader(chain.queries.state).get(address)).balance;
}

test('a v2 transfer at base fee costs 21 gas, burns it, and moves value', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  const res = await f.chain.admit(signTransfer(alice, { to: bob.address, value: 1000, nonce: 1 }), 0);
  assert.equal(res.status, 'pending');
  assert.equal(res.estimated_block, 1);
  assert.equal(res.gas_price, 1n, 'gas_price omitted: base_fee');
  const block = await f.block();
  assert.equal(block.header.tx_count, 1);
  assert.equal(block.gas_used, 21);
  assert.equal(block.fees_burned, 21n);
  assert.equal(await balance(f.chain, alice.address), 10n * COIN - 1000n - 21n);
  assert.equal(await balance(f.chain, bob.address), 1000n);
  const stored = await f.chain.queries.getTx(res.tx_hash);
  assert.equal(stored?.receipt.status, 'confirmed');
  assert.equal(stored?.receipt.fee, 21n);
  assert.equal(f.chain.head.total_burned, 21n);
});

test('a transfer to oneself costs only the fee and counts once', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  await f.chain.admit(signTransfer(alice, { to: alice.address, value: 5000, nonce: 1 }), 0);
  const block = await f.block();
  assert.equal(block.header.tx_count, 1);
  const acct = await accountsReader(f.chain.queries.state).get(alice.address);
  assert.equal(acct.balance, 10n * COIN - 21n);
  assert.equal(acct.nonce, 1n);
  assert.equal(acct.tx_count, 1);
});

test('a v3 transfer at gas price 2 pays 42; the part above base fee goes to the proposer\'s owner', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 5, nonce: 1, gas_price: 2, data: 'memo', version: 'v3' }), 0);
  const block = await f.block();
  assert.equal(block.fees_burned, 21n);
  assert.equal(await balance(f.chain, alice.address), 10n * COIN - 5n - 42n);
  // decisions.md §30: a .node holds no spendable balance; the proposer's share goes to its owner,
  // for a genesis validator the address its key derives.
  assert.equal(await balance(f.chain, 'chain:v0.node'), 0n);
  assert.equal(await balance(f.chain, deriveAddress(VALIDATOR_KEY.publicKey)), 21n);
  const stored = await f.chain.queries.getTx(block.tx_hashes[0]!);
  assert.equal(stored?.tx.sigVersion, 'v3');
});

test('admission refuses bad input with the spec statuses', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  const status = async (body: unknown): Promise<[number, string]> => {
    try {
      await f.chain.admit(body, 0);
      return [200, ''];
    } catch (e) {
      assert.ok(e instanceof ChainError, String(e));
      return [e.status, e.message];
    }
  };
  const good = signTransfer(alice, { to: bob.address, value: 1, nonce: 1 });
  assert.deepEqual((await status({ ...good, value: '1' }))[0], 400);
  assert.match((await status({ ...good, value: '1' }))[1], /from\/to\/value/);
  assert.equal((await status({ ...good, signature: (good.signature as string).replace(/^../, '00') }))[0], 401);
  // Part 2, Authentication §4: a missing signature is 401 like an invalid one, and so is a missing key.
  const { signature: _sig, public_key: _pk, ...unsigned } = good;
  assert.deepEqual(await status(unsigned), [401, 'signature is required (hex ML-DSA-65 signature)']);
  assert.deepEqual(await status({ ...good, signature: '' }), [401, 'signature is required (hex ML-DSA-65 signature)']);
  assert.deepEqual(await status({ ...good, public_key: undefined }), [401, 'public_key is required (hex ML-DSA-65 public key)']);
  assert.deepEqual(await status({ ...good, public_key: '' }), [401, 'public_key is required (hex ML-DSA-65 public key)']);
  assert.match((await status({ ...signTransfer(bob, { to: bob.address, value: 1, nonce: 1 }), from: alice.address }))[1], /not bound/);
  assert.match((await status(signTransfer(alice, { to: bob.address, value: 1, nonce: 1, gas_price: 0, version: 'v3' })))[1], /below base_fee/);
  assert.match((await status(signTransfer(alice, { to: bob.address, value: 1, nonce: 2 })))[1], /expected 1/);
  assert.match((await status(signTransfer(alice, { to: bob.address, value: 11 * 1_000_000, nonce: 1 })))[1], /insufficient balance/);
  assert.equal((await status(good))[0], 200);
  assert.match((await status(good))[1], /duplicate/);
  await f.block();
  assert.match((await status(signTransfer(alice, { to: bob.address, value: 2, nonce: 1 })))[1], /expected 2/, 'a reused nonce is refused');
});

test('the signature is checked before nonce and balance (decisions.md §16): a forged transfer is 401 whatever else is wrong with it', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  const forged = (body: Record<string, unknown>): Record<string, unknown> => ({ ...body, signature: (body.signature as string).replace(/^../, '00') });
  const refusal = async (body: unknown): Promise<string> => {
    const e = await f.chain.admit(body, 0).then(() => undefined, (err: unknown) => err);
    assert.ok(e instanceof ChainError, String(e));
    return `${e.status} ${e.message}`;
  };
  assert.match(await refusal(forged(signTransfer(bob, { to: alice.address, value: 1, nonce: 1 }))), /^401 invalid signature/, 'an unfunded sender');
  assert.match(await refusal(forged(signTransfer(alice, { to: bob.address, value: 1, nonce: 5 }))), /^401 invalid signature/, 'a nonce out of order');
  assert.match(await refusal(forged(signTransfer(alice, { to: bob.address, value: 1, nonce: 1 }))), /^401 invalid signature/, 'a submission that could apply');
  // Well signed, the same faults get their own 400s.
  assert.match(await refusal(signTransfer(bob, { to: alice.address, value: 1, nonce: 1 })), /^400 insufficient balance/);
  assert.match(await refusal(signTransfer(alice, { to: bob.address, value: 1, nonce: 5 })), /^400 nonce 5 is not the next nonce/);
});

test('pending nonces chain: next nonce counts the mempool', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  for (let n = 1; n <= 3; n++) await f.chain.admit(signTransfer(alice, { to: bob.address, value: n, nonce: n }), 0);
  assert.equal(f.chain.mempool.nextNonce(alice.address, 0n), 4n);
  const b = await f.block();
  assert.equal(b.header.tx_count, 3);
  const acct = await accountsReader(f.chain.queries.state).get(alice.address);
  assert.equal(acct.nonce, 3n);
  assert.equal(acct.tx_count, 3);
});

test('a failing plugin handler rolls back its writes but keeps fee and nonce', async () => {
  const failing = definePlugin({
    name: 'boom',
    kind: 'state',
    description: 'writes, then throws',
    systemAddresses: [{ address: 'chain:system.boom', gas: 30 }],
    register(api) {
      api.hooks.executeTx.for('chain:system.boom').tapPromise(api.name, async (ctx, tx) => {
        ctx.store.setRecord('written', { by: tx.hash });
        await ctx.accounts.credit(tx.from, 1_000_000n);
        throw badRequest('boom refuses');
      });
    },
  });
  const f = await makeChain({ plugins: [failing], accounts: [{ address: alice.address, balance: COIN }] });
  const res = await f.chain.admit(signTransfer(alice, { to: 'chain:system.boom', value: 0, nonce: 1 }), 0);
  await f.block();
  const st = await f.chain.queries.getTx(res.tx_hash);
  assert.equal(st?.receipt.status, 'failed');
  assert.equal(st?.receipt.error, 'boom refuses');
  assert.equal(st?.receipt.fee, 30n);
  const acct = await accountsReader(f.chain.queries.state).get(alice.address);
  assert.equal(acct.balance, COIN - 30n);
  assert.equal(acct.nonce, 1n);
  assert.equal(await f.chain.queries.state.get('boom/written'), undefined);
});

test('validation refuses a block whose prev_state_root differs (state divergence)', async () => {
  const f = await makeChain({});
  const p = await f.chain.propose(0, 'chain:v0.node', 1_800_000_000_000);
  const tampered = { ...p, header: { ...p.header, prev_state_root: '0x' + '11'.repeat(32) } };
  const { blockHash } = await import('./block-hash.js');
  const reason = await f.chain.validate({ ...tampered, hash: blockHash(tampered.header) });
  assert.match(reason ?? '', /state divergence/);
  assert.match((await f.chain.validate({ ...p, hash: '0x' + '00'.repeat(32) })) ?? '', /hash does not match/);
  assert.equal(await f.chain.validate(p), null);
});

test('state root changes with state and every block links to its parent', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  const genesisRoot = f.chain.head.state_root;
  const b1 = await f.block();
  assert.equal(b1.state_root, genesisRoot, 'an empty block leaves state as it was');
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 7, nonce: 1 }), 0);
  const b2 = await f.block();
  assert.notEqual(b2.state_root, b1.state_root);
  assert.equal(b2.header.parent_hash, b1.hash);
  assert.equal(b2.header.prev_state_root, b1.state_root);
  const proof = await f.chain.queries.proveState(`acct/${bob.address}`);
  assert.equal(proof.exists, true);
  const { verifyProof, parseStateProof } = await import('../state/tree/index.js');
  const { parseHex } = await import('../codec/hex.js');
  const value = Buffer.from(proof.value_hex as string, 'hex');
  assert.ok(verifyProof(parseHex(b2.state_root)!, new TextEncoder().encode(`acct/${bob.address}`), value, parseStateProof(proof.proof)));
});

test('blocks whose tree updates took old-value hints from the state cache commit the root of their whole state', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: COIN }, { address: bob.address, balance: COIN }] });
  const { ChainStore } = await import('../store/chain-store.js');
  const { StateTree, EMPTY_ROOT } = await import('../state/tree/index.js');
  const { MemoryKv } = await import('../state/tree/memory-kv.js');
  const { WriteBatch } = await import('../state/kv.js');
  // Every hint the chain passes must be the value committed for that key under the root it updates:
  // the tree would only ignore a wrong one, so this is where a stale hint would show.
  let committed = new Map<string, Uint8Array>();
  let prevRoot = '';
  let hints = 0;
  const update = StateTree.prototype.update;
  StateTree.prototype.update = function (this: InstanceType<typeof StateTree>, root, changes, batch) {
    assert.equal('0x' + Buffer.from(root).toString('hex'), prevRoot);
    for (const [key, , old] of changes) {
      if (old === undefined) continue;
      hints++;
      assert.deepEqual(old, committed.get(new TextDecoder().decode(key)), new TextDecoder().decode(key));
    }
    return update.call(this, root, changes, batch);
  };
  try {
    for (let n = 1; n <= 3; n++) {
      await f.chain.admit(signTransfer(alice, { to: bob.address, value: n, nonce: n }), 0);
      await f.chain.admit(signTransfer(bob, { to: wallet(10 + n).address, value: 5, nonce: n }), 0);
      committed = new Map(await new ChainStore(f.kv).state.scan(''));
      prevRoot = f.chain.head.state_root;
      await f.block();
    }
  } finally {
    StateTree.prototype.update = update;
  }
  assert.ok(hints > 0, 'the chain passed no hint');
  // The definition's root of everything committed, from a fresh tree that was given no hints.
  const state = await new ChainStore(f.kv).state.scan('');
  const fresh = await new StateTree(new MemoryKv()).update(EMPTY_ROOT, state.map(([k, v]) => [new TextEncoder().encode(k), v] as const), new WriteBatch());
  assert.equal(f.chain.head.state_root, '0x' + Buffer.from(fresh).toString('hex'));
});

test('consecutive nonces submitted at the same instant are all admitted', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  const bodies = [1, 2, 3, 4].map((n) => signTransfer(alice, { to: bob.address, value: n, nonce: n }));
  // All four start before any finishes its signature check; each waits for its sender's previous one.
  const admitted = await Promise.all(bodies.map((b) => f.chain.admit(b, 0)));
  assert.deepEqual(admitted.map((r) => r.status), ['pending', 'pending', 'pending', 'pending']);
  assert.equal(f.chain.mempool.nextNonce(alice.address, 0n), 5n);
});

test('a submission sent as canonical text keeps that text; any other spelling gets the canonical form and the same id', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  const [first, second] = [1, 2].map((n) => signTransfer(alice, { to: bob.address, value: n, nonce: n }));
  const canonicalText = canonicalJson(first);
  const a = await f.chain.admit(JSON.parse(canonicalText), 0, 'local', canonicalText);
  // The very string that arrived, not an equal copy of it.
  assert.equal(f.chain.pendingTx(a.tx_hash)?.canonical, canonicalText);
  assert.equal(a.tx_hash, sha3Hex0x(canonicalText));
  const spaced = JSON.stringify(second, null, 1);
  const b = await f.chain.admit(JSON.parse(spaced), 0, 'local', spaced);
  assert.equal(f.chain.pendingTx(b.tx_hash)?.canonical, canonicalJson(second));
  assert.equal(b.tx_hash, sha3Hex0x(canonicalJson(second)));
  // A text that does not match the parsed body (a caller's mistake) is never trusted as its form.
  const third = signTransfer(alice, { to: bob.address, value: 3, nonce: 3 });
  const c = await f.chain.admit(third, 0, 'local', canonicalText);
  assert.equal(c.tx_hash, sha3Hex0x(canonicalJson(third)));
});

test('blocks are bounded by max_block_bytes, and validators refuse a larger one', async () => {
  const senders = [wallet(71), wallet(72), wallet(73)];
  const bodies = senders.map((w) => signTransfer(w, { to: bob.address, value: 1, nonce: 1 }));
  const { canonicalJson } = await import('../codec/json.js');
  const one = Math.max(...bodies.map((b) => Buffer.byteLength(canonicalJson(b))));
  assert.ok(one > 10_000, `a signed transfer is about ${one} bytes`);
  // Room for two transactions, not three.
  const f = await makeChain({ accounts: senders.map((w) => ({ address: w.address, balance: COIN })), genesisParams: { max_block_bytes: String(2 * one + 100) } });
  for (const b of bodies) await f.chain.admit(b, 0);
  const p = await f.chain.propose(0, 'chain:v0.node', 1_800_000_000_000);
  assert.equal(p.txs.length, 2);
  const all = [...p.txs, f.chain.mempool.pendingOf(senders[2]!.address)[0]!];
  const { blockHash } = await import('./block-hash.js');
  const { merkleRoot } = await import('../crypto/merkle.js');
  const { parseHex, toHex0x } = await import('../codec/hex.js');
  const header = { ...p.header, tx_count: 3, tx_root: toHex0x(merkleRoot(all.map((t) => parseHex(t.hash)!))) };
  assert.match((await f.chain.validate({ ...p, header, hash: blockHash(header), txs: all })) ?? '', /exceeds max_block_bytes/);
});

test('a proposer puts at most EVIDENCE_PER_PROPOSAL pieces of evidence in a block; validators refuse more than MAX_EVIDENCE_PER_BLOCK', async () => {
  const { EVIDENCE_PER_PROPOSAL, MAX_EVIDENCE_PER_BLOCK } = await import('./chain.js');
  const { blockHash, evidenceHash } = await import('./block-hash.js');
  const f = await makeChain();
  const items = Array.from({ length: MAX_EVIDENCE_PER_BLOCK + 1 }, (_, i) => ({
    hash: sha3Hex0x(`evidence ${i}`),
    kind: 'duplicate-vote' as const,
    validator: 'chain:v0.node',
    height: 1,
    round: i,
    raw: {},
  }));
  const p = await f.chain.propose(0, 'chain:v0.node', 1_800_000_000_000, items);
  assert.equal(p.evidence.length, EVIDENCE_PER_PROPOSAL, 'the proposer leaves the rest for later blocks');
  const header = { ...p.header, evidence_hash: evidenceHash(items.map((e) => e.hash)) };
  assert.match((await f.chain.validate({ ...p, header, hash: blockHash(header), evidence: items })) ?? '', new RegExp(`more than ${MAX_EVIDENCE_PER_BLOCK}`));
});

test('a block validated once is not re-checked in full, but its lists still must match its header', async () => {
  let processCalls = 0;
  const counter = definePlugin({
    name: 'counter',
    kind: 'state',
    description: 'counts processProposal calls',
    register(api) {
      api.hooks.processProposal.tapPromise(api.name, async () => {
        processCalls++;
        return undefined;
      });
    },
  });
  const f = await makeChain({ plugins: [counter], accounts: [{ address: alice.address, balance: COIN }] });
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), 0);
  const p = await f.chain.propose(0, 'chain:v0.node', 1_800_000_000_000);
  assert.equal(await f.chain.validate(p), null);
  assert.equal(await f.chain.validate(p), null);
  assert.equal(processCalls, 1, 'the second validation of the same block skips the full checks');
  assert.match((await f.chain.validate({ ...p, txs: [] })) ?? '', /tx_count does not match/);
  const forged = { ...p.txs[0]!, hash: `0x${'ab'.repeat(32)}` };
  assert.match((await f.chain.validate({ ...p, txs: [forged] })) ?? '', /tx_root does not match/);
  await f.chain.finalize(p);
  const next = await f.chain.propose(0, 'chain:v0.node', 1_800_000_001_000);
  assert.equal(await f.chain.validate(next), null);
  assert.equal(processCalls, 2, 'a new head validates in full again');
});

/** A plugin whose checkTx, once `hold` is called, waits until released: the window in which a block commits a transaction whose copy is still in admission. */
function slowCheck(): { plugin: ReturnType<typeof definePlugin>; hold(): { entered: Promise<void>; release(): void } } {
  let entered: () => void = () => undefined;
  let waiting: Promise<void> = Promise.resolve();
  const plugin = definePlugin({
    name: 'slow-check',
    kind: 'state',
    description: 'holds checkTx until released',
    register(api) {
      api.hooks.checkTx.tapPromise(api.name, async () => {
        entered();
        await waiting;
        return undefined;
      });
    },
  });
  return {
    plugin,
    hold() {
      let release: () => void = () => undefined;
      waiting = new Promise((r) => (release = r));
      return { entered: new Promise<void>((r) => (entered = r)), release: () => release() };
    },
  };
}

test('a copy still in admission when a block commits its transaction is refused, and the nonces after it are kept and committed', async () => {
  const slow = slowCheck();
  const f = await makeChain({ plugins: [slow.plugin], accounts: [{ address: alice.address, balance: COIN }] });
  const first = signTransfer(alice, { to: bob.address, value: 5, nonce: 1 });
  const held = slow.hold();
  const late = f.chain.admit(first, 0);
  await held.entered;
  // The same transaction, relayed and admitted elsewhere, committed first.
  f.chain.mempool.add(f.chain.rebuildTx('signed', first, 1n, 0));
  const b1 = await f.block();
  assert.equal(b1.header.tx_count, 1);
  held.release();
  await assert.rejects(late, (e: unknown) => e instanceof ChainError && e.status === 400 && /duplicate transaction/.test(e.message));
  assert.equal(f.chain.mempool.pendingOf(alice.address).length, 0, 'the late copy was not queued');
  const second = await f.chain.admit(signTransfer(alice, { to: bob.address, value: 6, nonce: 2 }), 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(second.tx_hash))?.receipt.status, 'confirmed');
  assert.equal((await f.chain.queries.getTx(b1.tx_hashes[0]!))?.receipt.status, 'confirmed', 'the first keeps its receipt');
});

test('a relayed system transaction committed while its copy was in admission is not queued again (it has no nonce to stop a second credit)', async () => {
  const slow = slowCheck();
  const f = await makeChain({ plugins: [faucetPlugin, slow.plugin] });
  const credit = { type: 'faucet', from: 'chain:system.faucet', to: bob.address, value: 7, address: bob.address, public_key: bob.publicKeyHex, amount: 7 };
  const held = slow.hold();
  const late = f.chain.admitFromPeer('system', credit, 0, canonicalJson(credit));
  await held.entered;
  f.chain.mempool.add(f.chain.rebuildTx('system', credit, 0n, 0));
  assert.equal((await f.block()).header.tx_count, 1);
  held.release();
  await late;
  assert.equal(f.chain.mempool.size, 0, 'the late copy was not queued');
  await f.block();
  assert.equal((await accountsReader(f.chain.queries.state).get(bob.address)).balance, 7n, 'credited once');
});
