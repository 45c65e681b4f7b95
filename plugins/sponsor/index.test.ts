import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, signOperation, signTransfer, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { isChainError } from '../../kernel/sdk.js';
import { sponsorPlugin } from './index.js';
import { poolAddress } from './store.js';
import { NOTE_ADDRESS, eventRecorder } from '../../test/helpers/event-recorder.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const sessionPlugin = cataloguedPlugin('session');

const sponsor = labelledWallet('sponsor-owner');
const user = labelledWallet('sponsor-user');
const agent = labelledWallet('sponsor-agent');
const stranger = labelledWallet('sponsor-stranger');
const SPONSOR = 'chain:system.sponsor';
let clock = 1_800_000_000_000;

async function chain(): Promise<Fixture> {
  return makeChain({
    plugins: [sessionPlugin, sponsorPlugin],
    accounts: [
      { address: sponsor.address, balance: 1_000_000n },
      { address: user.address, balance: 1_000n },
      { address: stranger.address, balance: 1_000n },
    ],
  });
}

const op = (w: Wallet, actor: string, body: Record<string, unknown>, value = 0, kind?: string) => signOperation(w, { ...(kind !== undefined ? { kind } : {}), actor, target: SPONSOR, value, nonce: ++clock, body: { address: actor, ...body } });

async function confirmed(f: Fixture, name: string, body: Record<string, unknown>): Promise<void> {
  const r = await f.chain.admitOperation(name, body, {}, 0);
  await f.block();
  assert.equal((await f.chain.lookupTx(r.tx_hash))!.receipt!.status, 'confirmed');
}

async function expectRefused(p: Promise<unknown>, status: number, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => isChainError(e) && e.status === status && re.test(e.message));
}

const transfer = async (f: Fixture, w: Wallet, value: number, from = w.address) => signTransfer(w, { from, to: sponsor.address, value, nonce: Number((await f.account(from)).nonce) + 1 });

test('a pool pays the fees of the accounts its owner names, nobody else\'s; withdraw returns the rest; an empty pool falls back to the sender', async () => {
  const f = await chain();
  await confirmed(f, 'sponsor_deposit', op(sponsor, sponsor.address, { amount: 10_000 }, 10_000));
  assert.equal((await f.account(poolAddress(sponsor.address))).balance, 10_000n);
  await confirmed(f, 'sponsor_allow', op(sponsor, sponsor.address, { beneficiary: user.address }));

  await f.chain.admit(await transfer(f, user, 100), 0);
  await f.block();
  assert.equal((await f.account(user.address)).balance, 900n, 'the user paid the value only');
  assert.equal((await f.account(poolAddress(sponsor.address))).balance, 10_000n - 21n, 'the pool paid the 21 gas fee');

  await f.chain.admit(await transfer(f, stranger, 100), 0);
  await f.block();
  assert.equal((await f.account(stranger.address)).balance, 1_000n - 100n - 21n, 'a stranger pays its own fee');
  assert.equal((await f.account(poolAddress(sponsor.address))).balance, 10_000n - 21n);

  // A stranger cannot move or redirect the pool: it signs for an address its key is not bound to.
  await expectRefused(f.chain.admitOperation('sponsor_withdraw', op(stranger, sponsor.address, { amount: 1 }, 1), {}, 0), 401, /not bound to/);
  await expectRefused(f.chain.admitOperation('sponsor_allow', op(stranger, sponsor.address, { beneficiary: stranger.address }), {}, 0), 401, /not bound to/);
  await expectRefused(f.chain.admitOperation('sponsor_allow', op(stranger, stranger.address, { beneficiary: user.address }), {}, 0), 409, /already sponsored by/);
  await expectRefused(f.chain.admitOperation('sponsor_withdraw', op(sponsor, sponsor.address, { amount: 10_000 }, 10_000), {}, 0), 400, /holds 9979 ucoin, less than 10000/);

  const before = (await f.account(sponsor.address)).balance;
  await confirmed(f, 'sponsor_withdraw', op(sponsor, sponsor.address, { amount: 9_979 }, 9_979));
  assert.equal((await f.account(poolAddress(sponsor.address))).balance, 0n);
  assert.equal((await f.account(sponsor.address)).balance, before + 9_979n - 30n, 'the rest came back, less the withdrawal\'s own fee');

  await f.chain.admit(await transfer(f, user, 100), 0);
  await f.block();
  assert.equal((await f.account(user.address)).balance, 900n - 100n - 21n, 'the empty pool: the user paid its own fee');
});

test('a pool limited to one session key pays only that key\'s transactions; a session key may not choose whom a pool pays for', async () => {
  const f = await chain();
  await confirmed(f, 'sponsor_deposit', op(sponsor, sponsor.address, { amount: 10_000 }, 10_000));
  await confirmed(f, 'grant_session', signOperation(user, { actor: user.address, target: 'chain:system.session', nonce: ++clock, body: { account: user.address, session_pk: agent.publicKeyHex, scope: '*', cap: 500, expiry_block: 100 } }));
  await confirmed(f, 'sponsor_allow', op(sponsor, sponsor.address, { beneficiary: user.address, session_pk: agent.publicKeyHex }));
  const userBefore = (await f.account(user.address)).balance;
  await f.chain.admit(await transfer(f, user, 10), 0);
  await f.block();
  assert.equal((await f.account(user.address)).balance, userBefore - 10n - 21n, 'the main key\'s transfer is not sponsored');
  await f.chain.admit(await transfer(f, agent, 10, user.address), 0);
  await f.block();
  assert.equal((await f.account(user.address)).balance, userBefore - 10n - 21n - 10n, 'the session key\'s transfer is');
  assert.equal((await f.account(poolAddress(sponsor.address))).balance, 10_000n - 21n);

  await confirmed(f, 'grant_session', signOperation(sponsor, { actor: sponsor.address, target: 'chain:system.session', nonce: ++clock, body: { account: sponsor.address, session_pk: agent.publicKeyHex, scope: '*', cap: 500, expiry_block: 100 } }));
  const bySession = op(agent, sponsor.address, { beneficiary: stranger.address });
  await expectRefused(f.chain.admitOperation('sponsor_allow', bySession, {}, 0), 401, /only a main key of the account may choose whom a sponsor pool pays for/);
  f.chain.mempool.add(f.chain.rebuildTx('signed', f.operations.envelope('sponsor_allow', bySession, {}), 1n, 0));
  const b = await f.block();
  const r = (await f.chain.lookupTx(b.tx_hashes[0]!))!.receipt!;
  assert.equal(r.status, 'failed');
  assert.match(r.error!, /only a main key/);
});

test('a pool is checked against the largest fee a transaction can be charged (decisions.md §95): a limit it cannot cover, or above sponsor_max_gas, is the sender\'s own to pay', async () => {
  const f = await chain();
  await confirmed(f, 'sponsor_deposit', op(sponsor, sponsor.address, { amount: 100 }, 100, 'sponsor_deposit'));
  await confirmed(f, 'sponsor_allow', op(sponsor, sponsor.address, { beneficiary: user.address }, 0, 'sponsor_allow'));
  const send = async (extra: { gas_limit?: number; gas_price?: number }) => {
    const before = [(await f.account(user.address)).balance, (await f.account(poolAddress(sponsor.address))).balance];
    const r = await f.chain.admit(signTransfer(user, { to: sponsor.address, value: 1, nonce: Number((await f.account(user.address)).nonce) + 1, ...extra }), 0);
    await f.block();
    assert.equal((await f.chain.lookupTx(r.tx_hash))!.receipt!.status, 'confirmed');
    return [before[0]! - (await f.account(user.address)).balance, before[1]! - (await f.account(poolAddress(sponsor.address))).balance];
  };
  // 90 gas at price 2 may cost 180: more than the 100 the pool holds, though gas_price × 100 would have passed.
  assert.deepEqual(await send({ gas_limit: 90, gas_price: 2 }), [1n + 42n + 69n, 0n], 'the sender paid 21 × 2, and the 69 unused at base fee');
  assert.deepEqual(await send({ gas_limit: 101 }), [1n + 101n, 0n], 'a limit above sponsor_max_gas (100) is not the pool\'s');
  assert.deepEqual(await send({}), [1n, 21n], 'a plain transfer within both is paid by the pool');
});

test('a sponsored account pays the storage fee of the state it adds itself: the pool pays the gas fee it was checked for, nothing more', async () => {
  const f = await makeChain({
    plugins: [sessionPlugin, sponsorPlugin, eventRecorder()],
    accounts: [{ address: sponsor.address, balance: 1_000_000n }, { address: user.address, balance: 100_000n }],
    genesisParams: { storage_free_bytes: '100', storage_byte_price: '10' },
  });
  await confirmed(f, 'sponsor_deposit', op(sponsor, sponsor.address, { amount: 10_000 }, 10_000));
  await confirmed(f, 'sponsor_allow', op(sponsor, sponsor.address, { beneficiary: user.address }));
  const pool = (await f.account(poolAddress(sponsor.address))).balance;
  const sent = await f.chain.admit(signTransfer(user, { to: NOTE_ADDRESS, value: 0, nonce: Number((await f.account(user.address)).nonce) + 1, data: 'n'.repeat(400) }), 0);
  await f.block();
  const r = (await f.chain.lookupTx(sent.tx_hash))!.receipt!;
  assert.equal(r.status, 'confirmed', r.error ?? '');
  assert.ok((r.storage_fee ?? 0n) > 0n, 'the note grew state past the allowance');
  assert.equal((await f.account(poolAddress(sponsor.address))).balance, pool - r.fee, 'the pool paid the fee only');
  assert.equal((await f.account(user.address)).balance, 100_000n - r.storage_fee!, 'the account paid the storage fee');
});
