import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { labelledWallet, makeChain, signOwnLayout, signOperation, signTransfer, VALIDATOR_KEY, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { defineOperation, definePlugin, deriveAddress, isChainError, type NodeServices } from '../../kernel/sdk.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHIPPED_MODEL_FILE, leastValueScoring, loadModel } from './model.js';
import { heldMessages } from './operations/held.js';
import { sentinelPlugin } from './index.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const sessionPlugin = cataloguedPlugin('session');
const stakingPlugin = cataloguedPlugin('staking');

const model = loadModel();
const BALANCE = 1_000_000n;
let clock = 1_900_000_000_000;

async function chain(senders: Wallet[], params: Record<string, string> = {}): Promise<Fixture> {
  return makeChain({
    plugins: [sessionPlugin, sentinelPlugin],
    pluginConfig: [{ name: 'session' }, { name: 'sentinel', options: { weights_hash: model.weightsHash } }],
    accounts: senders.map((w) => ({ address: w.address, balance: BALANCE })),
    genesisParams: { sentinel_policy_enabled: '1', sentinel_hold_blocks: '2', sentinel_confirm_expiry_blocks: '3', trust_activation_blocks: '2', ...params },
  });
}

/** The least value scoring at least `bp` for a transfer to a new recipient (a fresh sender's first unless `firstTransfer` is false; `burst` transfers in the last 10 blocks). */
function valueScoring(bp: bigint, balance: bigint, firstTransfer = true, burst = 0n): number {
  const last = firstTransfer ? 0n : 1n;
  return Number(leastValueScoring(model, bp, { gas_price: 1n, nonce: last + 1n, last_nonce: last, balance, tx_count_last_10: burst, recipient_tx_count: 0n, is_self_transfer: false }));
}

const nextNonce = async (f: Fixture, w: Wallet): Promise<number> => Number((await f.account(w.address)).nonce) + 1;
const send = async (f: Fixture, from: Wallet, to: string, value: number) => f.chain.admit(signTransfer(from, { to, value, nonce: await nextNonce(f, from) }), 0);
const receipt = async (f: Fixture, hash: string) => (await f.chain.lookupTx(hash))!.receipt!;
const types = async (f: Fixture, height: number): Promise<string[]> => (await f.chain.queries.getBlockEvents(height)).map((e) => e.type).filter((t) => t.startsWith('tx_'));
const held = (f: Fixture, owner: Wallet, hash: string, action: 'confirm' | 'cancel', signer: Wallet = owner) => {
  const nonce = ++clock;
  const body = { owner: owner.address, hash };
  return f.chain.admitOperation(`held_${action}`, signOwnLayout(signer, heldMessages[action](body, BigInt(nonce)), { owner: owner.address }, nonce), { hash }, 0);
};
const refused = (status: number, re: RegExp) => (e: unknown) => isChainError(e) && e.status === status && re.test(e.message);

test('refused at the reject threshold at admission, and failed in a block whose proposer skipped checkTx', async () => {
  const a = labelledWallet('sn-a');
  const f = await chain([a]);
  const drain = signTransfer(a, { to: labelledWallet('sn-x').address, value: 990_000, nonce: 1 });
  await assert.rejects(f.chain.admit(drain, 0), refused(400, /scored 0\.9\d{3} \(drain\), at or above sentinel_reject_threshold 85/));
  const tx = f.chain.rebuildTx('signed', drain, 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const r = await receipt(f, tx.hash);
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /sentinel_reject_threshold/);
  assert.equal((await f.account(a.address)).balance, BALANCE - 21n, 'only the fee');
});

test('an anomalous transfer is flagged and held; it releases after sentinel_hold_blocks with tx_released', async () => {
  const b = labelledWallet('sn-b');
  const f = await chain([b]);
  const to = labelledWallet('sn-y').address;
  const value = valueScoring(6_300n, BALANCE);
  const r = (await send(f, b, to, value)) as Record<string, unknown>;
  assert.equal(r.sentinel_category, 'drain');
  assert.ok((r.sentinel_score as number) >= 0.63 && (r.sentinel_score as number) < 0.7, String(r.sentinel_score));
  assert.match(String(r.sentinel_warning), /anomalous \(drain\)/);
  assert.deepEqual(r.held, { needs_owner: false, releases: 'automatic', reason: 'score', score: r.sentinel_score, category: 'drain', release_after_blocks: 2 });
  const blk = await f.block();
  const h = blk.header.height;
  assert.equal((await receipt(f, r.tx_hash as string)).status, 'confirmed');
  assert.deepEqual(await types(f, h), ['tx_anomaly', 'tx_held']);
  assert.equal((await f.account(to)).balance, 0n);
  assert.equal((await f.account(b.address)).balance, BALANCE - 21n - BigInt(value), 'the coins left the sender');
  await f.block();
  await f.block();
  assert.deepEqual(await types(f, h + 2), ['tx_released']);
  assert.equal((await f.account(to)).balance, BigInt(value));
});

test('step-up: refunded after the expiry when nobody confirms; released when the owner confirms; a session key may not confirm; a cancel returns the coins', async () => {
  const [c, agent] = [labelledWallet('sn-c'), labelledWallet('sn-agent')];
  const f = await chain([c]);
  const value = valueScoring(7_500n, BALANCE);
  const r1 = await send(f, c, labelledWallet('sn-z1').address, value);
  assert.equal(((r1 as unknown as Record<string, unknown>).held as { releases: string }).releases, 'owner_confirmation');
  const b1 = (await f.block()).header.height;
  for (let i = 0; i < 3; i++) await f.block();
  assert.deepEqual(await types(f, b1 + 3), ['tx_refunded']);
  assert.equal((await f.account(c.address)).balance, BALANCE - 21n, 'refunded');

  // A session key of the owner may not confirm (401), the owner's main key may.
  const grant = signOperation(c, { actor: c.address, target: 'chain:system.session', nonce: ++clock, body: { account: c.address, session_pk: agent.publicKeyHex, scope: '*', cap: 1000, expiry_block: 1000 } });
  await f.chain.admitOperation('grant_session', grant, {}, 0);
  await f.block();
  const balance = (await f.account(c.address)).balance;
  const to2 = labelledWallet('sn-z2').address;
  const r2 = await f.chain.admit(signTransfer(c, { to: to2, value: valueScoring(7_500n, balance, false, 1n), nonce: await nextNonce(f, c) }), 0);
  await f.block();
  await assert.rejects(held(f, c, r2.tx_hash, 'confirm', agent), refused(401, /only a main key of the account may confirm a held transfer/));
  await assert.rejects(held(f, c, '0x' + '0'.repeat(64), 'confirm'), refused(404, /no held transfer/));
  await held(f, c, r2.tx_hash, 'confirm');
  const b2 = (await f.block()).header.height;
  assert.deepEqual(await types(f, b2), ['tx_released']);
  assert.equal((await f.account(to2)).balance, BigInt(valueScoring(7_500n, balance, false, 1n)));
  await assert.rejects(held(f, c, r2.tx_hash, 'cancel'), refused(400, /no longer held: released/));

  const before = (await f.account(c.address)).balance;
  const r3 = await f.chain.admit(signTransfer(c, { to: labelledWallet('sn-z3').address, value: valueScoring(7_500n, before, false, 2n), nonce: await nextNonce(f, c) }), 0);
  await f.block();
  await held(f, c, r3.tx_hash, 'cancel');
  const b3 = (await f.block()).header.height;
  assert.deepEqual(await types(f, b3), ['tx_cancelled']);
  assert.equal((await f.account(c.address)).balance, before - 21n - 30n, 'the transfer\'s and the cancel\'s fees only');
});

test('a trusted recipient is held before its activation height and not after; a session key cannot manage the list', async () => {
  const [d, agent] = [labelledWallet('sn-d'), labelledWallet('sn-agent-d')];
  const f = await chain([d]);
  const to = labelledWallet('sn-t').address;
  const add = (w: Wallet) => f.chain.admitOperation('trust_add', signOperation(w, { actor: d.address, target: 'chain:system.trust', nonce: ++clock, body: { owner: d.address, recipient: to } }), {}, 0);
  await f.chain.admitOperation('grant_session', signOperation(d, { actor: d.address, target: 'chain:system.session', nonce: ++clock, body: { account: d.address, session_pk: agent.publicKeyHex, scope: '*', cap: 1000, expiry_block: 1000 } }), {}, 0);
  await f.block();
  await assert.rejects(add(agent), refused(401, /only a main key of the account may manage the trust list/));
  await add(d);
  const added = (await f.block()).header.height; // active from added + 2
  await assert.rejects(add(d), refused(400, /is already on .* trust list/), 'decisions.md §31: 409 is for names and addresses taken');
  const r1 = (await send(f, d, to, 600_000)) as Record<string, unknown>;
  assert.ok(r1.held, 'not yet active');
  assert.ok((await f.block()).header.height >= added + 1);
  assert.equal((await f.account(to)).balance, 0n);
  const value = valueScoring(6_500n, (await f.account(d.address)).balance, false, 1n);
  const r2 = (await send(f, d, to, value)) as Record<string, unknown>;
  assert.ok((r2.sentinel_score as number) >= 0.65, 'a score the policy would hold');
  assert.equal(r2.held, undefined);
  await f.block();
  assert.equal((await f.account(to)).balance, BigInt(value), 'trusted: paid at once');
});

test('a node whose weights file does not match the registered weights_hash refuses to start, and says why', async () => {
  await assert.rejects(
    makeChain({ plugins: [sentinelPlugin], pluginConfig: [{ name: 'sentinel', options: { weights_hash: '0x' + '0'.repeat(64) } }] }),
    (e: unknown) => e instanceof Error && /does not match the registered weights_hash 0x0{64}/.test(e.message) && e.message.includes(model.weightsHash),
  );
});

test('a node whose config and weights file agree with each other but not with the model registered in state stops before scoring', async () => {
  const w = labelledWallet('sn-registered');
  const first = await makeChain({ plugins: [sentinelPlugin], pluginConfig: [{ name: 'sentinel', options: { weights_hash: model.weightsHash } }], accounts: [{ address: w.address, balance: BALANCE }] });
  await first.block();
  // Another model file (here: the shipped one with a trailing space), registered in this node's config alone.
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-'));
  const file = join(dir, 'other.json');
  writeFileSync(file, readFileSync(SHIPPED_MODEL_FILE, 'utf8') + ' ');
  const other = loadModel(file);
  assert.notEqual(other.weightsHash, model.weightsHash);
  const node = await makeChain({ plugins: [sentinelPlugin], pluginConfig: [{ name: 'sentinel', options: { weights_hash: other.weightsHash, weights_file: file } }], accounts: [{ address: w.address, balance: BALANCE }], kv: first.kv });
  const mismatch = (e: unknown): boolean => e instanceof Error && e.message.includes(`${other.weightsHash} does not match the model registered in chain state`) && e.message.includes(model.weightsHash);
  await assert.rejects(send(node, w, labelledWallet('sn-registered-to').address, 5), mismatch);
  await assert.rejects(node.block(), mismatch);
  // The same state with the registered file scores as before.
  const good = await makeChain({ plugins: [sentinelPlugin], pluginConfig: [{ name: 'sentinel', options: { weights_hash: model.weightsHash } }], accounts: [{ address: w.address, balance: BALANCE }], kv: first.kv });
  await send(good, w, labelledWallet('sn-registered-to').address, 5);
  await good.block();
});

test('a session-key transfer from sentinel_agent_confirm_threshold needs the owner, where a main-key one of the same score releases by itself', async () => {
  const [g, agent] = [labelledWallet('sn-g'), labelledWallet('sn-agent-g')];
  const f = await chain([g], { sentinel_agent_confirm_threshold: '55' });
  await f.chain.admitOperation('grant_session', signOperation(g, { actor: g.address, target: 'chain:system.session', nonce: ++clock, body: { account: g.address, session_pk: agent.publicKeyHex, scope: '*', cap: 10_000_000, expiry_block: 1000 } }), {}, 0);
  await f.block();
  const value = valueScoring(5_700n, BALANCE);
  const r = (await f.chain.admit(signTransfer(agent, { from: g.address, to: labelledWallet('sn-g-to').address, value, nonce: 1 }), 0)) as unknown as Record<string, unknown>;
  assert.deepEqual([(r.held as Record<string, unknown>).reason, (r.held as Record<string, unknown>).releases], ['agent', 'owner_confirmation']);
  const b = (await f.block()).header.height;
  assert.deepEqual(await types(f, b), ['tx_anomaly', 'tx_held']);
  const [ev] = (await f.chain.queries.getBlockEvents(b)).filter((e) => e.type === 'tx_held');
  assert.equal(ev!.data.needs_owner, true);
  // The same score signed by the main key is below the hold threshold (60): not held at all.
  const own = (await send(f, g, labelledWallet('sn-g-to2').address, valueScoring(5_700n, (await f.account(g.address)).balance, false, 1n))) as unknown as Record<string, unknown>;
  assert.equal(own.held, undefined);
});

test('a record address signed by its owner is judged a main key at admission, as in the block: a .node\'s payment from sentinel_agent_confirm_threshold is not shown held for the owner', async () => {
  const owner: Wallet = { keys: VALIDATOR_KEY, address: NODE, publicKeyHex: Buffer.from(VALIDATOR_KEY.publicKey).toString('hex') };
  const f = await makeChain({
    plugins: [sessionPlugin, sentinelPlugin],
    pluginConfig: [{ name: 'session' }, { name: 'sentinel', options: { weights_hash: model.weightsHash } }],
    accounts: [{ address: NODE, balance: BALANCE }, { address: NODE_OWNER, balance: BALANCE }], // the owner pays the fee (decisions.md §19)
    genesisParams: { sentinel_policy_enabled: '1', sentinel_hold_blocks: '2', sentinel_confirm_expiry_blocks: '3', sentinel_agent_confirm_threshold: '55' },
  });
  const to = labelledWallet('sn-node-payee').address;
  const value = valueScoring(5_700n, BALANCE);
  const r = (await f.chain.admit(signTransfer(owner, { to, value, nonce: 1 }), 0)) as unknown as Record<string, unknown>;
  assert.equal(r.held, undefined, 'a main key below sentinel_hold_threshold: nothing held (a session key would need the owner)');
  const b = (await f.block()).header.height;
  assert.deepEqual(await types(f, b), ['tx_anomaly']);
  assert.equal((await f.account(to)).balance, BigInt(value), 'credited at once, as admission said');
});

/**
 * A stand-in for a later plugin that moves value (a vault taking deposits): it claims `.vault`
 * addresses, and a plain transaction to one moves its value into the vault's account through
 * `ctx.accounts.transfer`, knowing nothing of the sentinel; so does its `vault_deposit` operation.
 */
const vaultLike = definePlugin<Record<string, never>, NodeServices>({
  name: 'vaultlike',
  kind: 'state',
  description: 'test: a plugin that takes value, unaware of the sentinel',
  addressKinds: [{ kind: 'vault', gas: 21, description: 'test vault' }],
  operations: [
    // Deposits into a vault: one unaware of the sentinel, one that declares its move (`pays`), which the sentinel judges at admission too.
    ...(['vault_deposit', 'vault_deposit_declared'] as const).map((name) =>
      defineOperation({
        name,
        description: `test: deposits into a vault${name === 'vault_deposit' ? '' : ', declaring the move'}`,
        routes: [{ method: 'POST', path: `/test/vault/${name}` }],
        schema: Type.Object({ from: Type.String(), vault: Type.String(), amount: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
        signsFor: { field: 'vault' },
        gas: 30,
        ...(name === 'vault_deposit_declared' ? { pays: (_ctx: unknown, op: { body: { vault: string }; value: bigint }) => [{ to: op.body.vault, value: op.value }] } : {}),
        async execute(ctx, op) {
          await ctx.accounts.transfer(op.actor, op.body.vault, op.value);
        },
      }),
    ),
  ],
  register(api) {
    api.hooks.recordExists.for('vault').tapPromise(api.name, async () => true);
    api.hooks.executeTx.for('kind:vault').tapPromise(api.name, async (ctx, tx) => {
      await ctx.accounts.transfer(tx.from, tx.to, tx.value);
      return undefined;
    });
  },
});

async function wideChain(senders: Wallet[]): Promise<Fixture> {
  return makeChain({
    plugins: [stakingPlugin, sessionPlugin, vaultLike, sentinelPlugin],
    pluginConfig: [{ name: 'staking' }, { name: 'session' }, { name: 'vaultlike' }, { name: 'sentinel', options: { weights_hash: model.weightsHash } }],
    accounts: senders.map((w) => ({ address: w.address, balance: BALANCE })),
    genesisParams: { sentinel_policy_enabled: '1', sentinel_hold_blocks: '2', sentinel_confirm_expiry_blocks: '3', trust_activation_blocks: '2' },
  });
}
const NODE = 'chain:v0.node';
const NODE_OWNER = deriveAddress(VALIDATOR_KEY.publicKey);

test('decisions.md §99: a transfer to a .node is scored like one to a .human: refused at the reject threshold at admission and in a block; held in the hold range, and released to the node\'s owner', async () => {
  const [s, t] = [labelledWallet('sn-node-s'), labelledWallet('sn-node-t')];
  const f = await wideChain([s, t]);
  const drain = signTransfer(s, { to: NODE, value: 990_000, nonce: 1 });
  await assert.rejects(f.chain.admit(drain, 0), refused(400, /sentinel: transaction scored 0\.9\d{3} \(drain\), at or above sentinel_reject_threshold/));
  f.chain.mempool.add(f.chain.rebuildTx('signed', drain, 1n, 0));
  const b = await f.block();
  const r = await receipt(f, b.tx_hashes[0]!);
  assert.equal(r.status, 'failed');
  assert.match(r.error!, /sentinel_reject_threshold/);
  assert.equal((await f.account(s.address)).balance, BALANCE - 21n, 'the value stayed');
  assert.equal((await f.account(NODE_OWNER)).balance, 0n);

  const value = valueScoring(6_300n, BALANCE);
  const held = (await send(f, t, NODE, value)) as Record<string, unknown>;
  assert.equal((held.held as { releases: string }).releases, 'automatic');
  const hb = await f.block();
  assert.deepEqual(await types(f, hb.header.height), ['tx_anomaly', 'tx_held']);
  assert.equal((await f.account(NODE_OWNER)).balance, 0n, 'held, not credited');
  await f.block();
  await f.block();
  assert.equal((await f.account(NODE_OWNER)).balance, BigInt(value), 'released to the owner of the .node (decisions.md §30)');
  assert.equal((await f.account(NODE)).balance, 0n, 'never to the .node itself');
});

test('value a later plugin takes (a call to its address, its own operation) is scored through the kernel without the plugin knowing: refused at the threshold; where a payment would be held it is refused, since it cannot wait', async () => {
  const [u, v, w] = [labelledWallet('sn-vault-u'), labelledWallet('sn-vault-v'), labelledWallet('sn-vault-w')];
  const f = await wideChain([u, v, w]);
  const vault = 'chain:savings.vault';
  const drain = signTransfer(u, { to: vault, value: 990_000, nonce: 1 });
  await assert.rejects(f.chain.admit(drain, 0), refused(400, /sentinel_reject_threshold/));
  f.chain.mempool.add(f.chain.rebuildTx('signed', drain, 1n, 0));
  const b = await f.block();
  assert.match((await receipt(f, b.tx_hashes[0]!)).error ?? '', /sentinel_reject_threshold/);
  assert.equal((await f.account(vault)).balance, 0n);

  // A call carries data: admission knows it cannot be held.
  const holdRange = valueScoring(6_300n, BALANCE);
  await assert.rejects(f.chain.admit(signTransfer(v, { to: vault, value: holdRange, nonce: 1, data: '{"deposit":true}' }), 0), refused(400, /which the policy layer holds .*cannot be held/));
  // The operation is judged in the block, where the kernel shows the sentinel its transfer.
  const deposit = signOperation(w, { kind: 'vault_deposit', actor: w.address, target: vault, value: holdRange, nonce: ++clock, body: { from: w.address, vault, amount: holdRange } });
  const d = await f.chain.admitOperation('vault_deposit', deposit, {}, 0);
  await f.block();
  const dr = await receipt(f, d.tx_hash);
  assert.equal(dr.status, 'failed');
  assert.match(dr.error!, /sentinel: a transfer of value to chain:savings\.vault scored 0\.6\d{3} .*cannot be held/);
  assert.equal((await f.account(w.address)).balance, BALANCE - 30n, 'only the fee: the deposit rolled back');
  // Below the hold range it goes through, and is recorded as the sender's recent transfer.
  const small = signOperation(w, { kind: 'vault_deposit', actor: w.address, target: vault, value: 1_000, nonce: ++clock, body: { from: w.address, vault, amount: 1_000 } });
  const ok = await f.chain.admitOperation('vault_deposit', small, {}, 0);
  await f.block();
  assert.equal((await receipt(f, ok.tx_hash)).status, 'confirmed');
  assert.equal((await f.account(vault)).balance, 1_000n);
});

test('decisions.md §99 and §17: an operation that declares its move (pays) is refused at admission where the block would refuse it, at the reject threshold and in the hold range; a proposer that skips checkTx gets the same refusal in the block', async () => {
  const [u, v] = [labelledWallet('sn-pays-u'), labelledWallet('sn-pays-v')];
  const f = await wideChain([u, v]);
  const vault = 'chain:declared.vault';
  const deposit = (w: Wallet, amount: number) => signOperation(w, { kind: 'vault_deposit_declared', actor: w.address, target: vault, value: amount, nonce: ++clock, body: { from: w.address, vault, amount } });
  const drain = deposit(u, 990_000);
  await assert.rejects(f.chain.admitOperation('vault_deposit_declared', drain, {}, 0), refused(400, /sentinel: transaction scored 0\.9\d{3} \(drain\), at or above sentinel_reject_threshold/));
  assert.equal(f.chain.mempool.size, 0, 'nothing pending');
  const injected = f.chain.rebuildTx('signed', f.operations.envelope('vault_deposit_declared', drain, {}), 1n, 0);
  f.chain.mempool.add(injected);
  await f.block();
  const r = await receipt(f, injected.hash);
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /sentinel: transaction scored 0\.9\d{3} \(drain\), at or above sentinel_reject_threshold/);
  assert.equal((await f.account(vault)).balance, 0n);
  const holdRange = valueScoring(6_300n, BALANCE);
  await assert.rejects(f.chain.admitOperation('vault_deposit_declared', deposit(v, holdRange), {}, 0), refused(400, /sentinel: a transfer of value to chain:declared\.vault scored 0\.6\d{3} .*cannot be held/));
  // Below the hold range it is admitted and goes through.
  const ok = await f.chain.admitOperation('vault_deposit_declared', deposit(v, 1_000), {}, 0);
  await f.block();
  assert.equal((await receipt(f, ok.tx_hash)).status, 'confirmed');
  assert.equal((await f.account(vault)).balance, 1_000n);
  assert.equal((await f.account(u.address)).balance, BALANCE - 30n, 'the refusal at admission charged nothing; the injected one only its fee');
});

test('a shipped operation that declares its move: a sponsor deposit that drains the account is refused at admission (400), one of a usual size admitted', async () => {
  const sp = labelledWallet('sn-sponsor');
  const f = await makeChain({
    plugins: [sessionPlugin, cataloguedPlugin('sponsor'), sentinelPlugin],
    pluginConfig: [{ name: 'session' }, { name: 'sponsor' }, { name: 'sentinel', options: { weights_hash: model.weightsHash } }],
    accounts: [{ address: sp.address, balance: BALANCE }],
  });
  const deposit = (amount: number) => signOperation(sp, { kind: 'sponsor_deposit', actor: sp.address, target: 'chain:system.sponsor', value: amount, nonce: ++clock, body: { address: sp.address, amount } });
  await assert.rejects(f.chain.admitOperation('sponsor_deposit', deposit(990_000), {}, 0), refused(400, /sentinel: transaction scored 0\.9\d{3} \(drain\), at or above sentinel_reject_threshold/));
  const ok = await f.chain.admitOperation('sponsor_deposit', deposit(1_000), {}, 0);
  await f.block();
  assert.equal((await receipt(f, ok.tx_hash)).status, 'confirmed');
});

test('a vault payout that drains the vault is refused at admission (its declared move, out of the vault), and in the block when a proposer skips checkTx', async () => {
  const [owner, funder, payee] = [labelledWallet('sn-vault-owner'), labelledWallet('sn-vault-funder'), labelledWallet('sn-vault-payee')];
  const COIN = 1_000_000n;
  const f = await makeChain({
    plugins: [stakingPlugin, cataloguedPlugin('names'), cataloguedPlugin('vaults'), sessionPlugin, sentinelPlugin],
    pluginConfig: [{ name: 'staking' }, { name: 'names' }, { name: 'vaults' }, { name: 'session' }, { name: 'sentinel', options: { weights_hash: model.weightsHash } }],
    accounts: [owner, funder].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
  });
  const vault = 'chain:drained.vault';
  const op = (kind: string, target: string, body: Record<string, unknown>, value = 0) => signOperation(owner, { kind, actor: owner.address, target, nonce: ++clock, body, value });
  const reg = await f.chain.admitOperation('register_vault', op('register_vault', 'chain:system.node', { name: 'drained', owner: owner.address, node_address: vault }), {}, 0);
  await f.block();
  const fund = await f.chain.admit(signTransfer(funder, { to: vault, value: 1_000_000, nonce: 1 }), 0);
  await f.block();
  for (const h of [reg.tx_hash, fund.tx_hash as string]) assert.equal((await receipt(f, h)).status, 'confirmed', (await receipt(f, h)).error ?? '');
  const drain = op('create_vault_proposal', vault, { vault, proposer: owner.address, to: payee.address, amount: 990_000 }, 990_000);
  await assert.rejects(f.chain.admitOperation('create_vault_proposal', drain, { vault }, 0), refused(400, /sentinel: transaction scored 0\.9\d{3} \(drain\), at or above sentinel_reject_threshold/));
  const injected = f.chain.rebuildTx('signed', f.operations.envelope('create_vault_proposal', drain, { vault }), 1n, 0);
  f.chain.mempool.add(injected);
  await f.block();
  assert.match((await receipt(f, injected.hash)).error ?? '', /sentinel: transaction scored 0\.9\d{3} \(drain\), at or above sentinel_reject_threshold/);
  assert.equal((await f.account(vault)).balance, 1_000_000n, 'nothing left the vault');
  const small = await f.chain.admitOperation('create_vault_proposal', op('create_vault_proposal', vault, { vault, proposer: owner.address, to: payee.address, amount: 1_000 }, 1_000), { vault }, 0);
  await f.block();
  assert.equal((await receipt(f, small.tx_hash)).status, 'confirmed');
  assert.equal((await f.account(payee.address)).balance, 1_000n);
});

test('decisions.md §89: confirm and cancel take part 2\'s ch-tx-v2|<owner>|chain:system.trust|0|<nonce>, and v3/v4 with the path\'s hash in the body; a v4 signature without it, or for another hash, is 401', async () => {
  const [o, p] = [labelledWallet('sn-89-o'), labelledWallet('sn-89-p')];
  const f = await chain([o, p]);
  const value = valueScoring(7_200n, BALANCE);
  const hold = async (w: Wallet): Promise<string> => {
    const r = (await send(f, w, labelledWallet(`sn-89-to-${w.address}`).address, value)) as Record<string, unknown>;
    assert.equal((r.held as { needs_owner: boolean }).needs_owner, true);
    await f.block();
    return r.tx_hash as string;
  };
  const act = (action: 'confirm' | 'cancel', w: Wallet, hash: string, body: Record<string, unknown>, version: 'v2' | 'v3' | 'v4') =>
    f.chain.admitOperation(`held_${action}`, signOperation(w, { kind: `held_${action}`, actor: w.address, target: 'chain:system.trust', nonce: ++clock, body, version }), { hash }, 0);
  const first = await hold(o);
  // Part 2's layout: the owner and nothing else in the body.
  const confirmed = await act('confirm', o, first, { owner: o.address }, 'v2');
  await f.block();
  assert.equal((await receipt(f, confirmed.tx_hash)).status, 'confirmed');
  const second = await hold(p);
  await assert.rejects(act('cancel', p, second, { owner: p.address }, 'v4'), refused(401, /ch-tx-v4 does not cover the URL: put hash in the signed body/));
  await assert.rejects(act('cancel', p, second, { owner: p.address, hash: first }, 'v4'), refused(400, /the body says .* but the path says/));
  const cancelled = await act('cancel', p, second, { owner: p.address, hash: second }, 'v3');
  await f.block();
  assert.equal((await receipt(f, cancelled.tx_hash)).status, 'confirmed');
  assert.equal((await f.account(p.address)).balance, BALANCE - 21n - 30n, 'the held coins came back');
});
