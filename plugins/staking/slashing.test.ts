import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, VALIDATOR_KEY, wallet } from '../../test/helpers/chain-fixture.js';
import { deriveAddress, isChainError, toHex } from '../../kernel/sdk.js';
import { signOperation } from '../../test/helpers/chain-fixture.js';
import { stakingPlugin } from './index.js';

const COIN = 1_000_000n;
const other = wallet(131);

test('double-sign evidence: 5 % of min_stake slashed, 1 % of it to the reporter (the proposer\'s owner), the rest burned, jailed for jail_blocks, back after', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: String(10_000n * COIN) },
      { address: 'chain:v1.node', key: other.keys, stake: String(10_000n * COIN) },
    ],
    genesisParams: { min_stake: String(10n * COIN), jail_blocks: '3' },
  });
  const evidence = { hash: '0x' + 'ab'.repeat(32), kind: 'duplicate-vote' as const, validator: 'chain:v1.node', height: 1, round: 0, raw: { test: true } };
  f.evidenceVerifier = async () => evidence; // the consensus layer's verification, taken as passed
  const reporter = deriveAddress(VALIDATOR_KEY.publicKey);
  const p = await f.chain.propose(0, 'chain:v0.node', Date.now(), [evidence]);
  assert.equal(await f.chain.validate(p), null);
  const block = await f.chain.finalize(p);
  const slashed = 10n * COIN * 500n / 10_000n; // 500 000 ucoin
  const reward = slashed * 100n / 10_000n; // 5 000 ucoin
  assert.equal((await f.account(reporter)).balance, reward);
  const stake = JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get('staking/stake/chain:v1.node'))!)) as { amount: { $big: string } };
  assert.equal(BigInt(stake.amount.$big), 10_000n * COIN - slashed);
  assert.deepEqual((await f.chain.queries.validatorSetAt(f.chain.head.height + 2)).map((v) => v.address), ['chain:v0.node'], 'jailed: voting power 0 (from the set-change delay on)');
  const node = JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get('staking/node/chain:v1.node'))!)) as { jailed_until: number };
  assert.equal(node.jailed_until, block.header.height + 3);
  while (f.chain.head.height < node.jailed_until) await f.block();
  assert.deepEqual((await f.chain.queries.validatorSetAt(f.chain.head.height + 2)).map((v) => [v.address, v.power]), [['chain:v0.node', 10_000n * COIN], ['chain:v1.node', 10_000n * COIN - slashed]], 'back after jail_blocks, its stake still above min_stake');
});

async function slashChain(v1Stake: bigint, params: Record<string, string>) {
  const f = await makeChain({
    plugins: [stakingPlugin],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: String(10_000n * COIN) },
      { address: 'chain:v1.node', key: other.keys, stake: String(v1Stake) },
    ],
    accounts: [{ address: other.address, balance: 100n * COIN }],
    genesisParams: { min_stake: String(10n * COIN), jail_blocks: '3', ...params },
  });
  const evidence = { hash: '0x' + 'ef'.repeat(32), kind: 'duplicate-vote' as const, validator: 'chain:v1.node', height: 1, round: 0, raw: { test: true } };
  f.evidenceVerifier = async () => evidence;
  const block = await f.chain.finalize(await f.chain.propose(0, 'chain:v0.node', Date.now(), [evidence]));
  const stake = async () => {
    const raw = await f.chain.queries.state.get('staking/stake/chain:v1.node');
    return raw === undefined ? undefined : BigInt((JSON.parse(new TextDecoder().decode(raw)) as { amount: { $big: string } }).amount.$big);
  };
  return { f, block, stake };
}

test('a slash is capped at the validator\'s self-stake (nothing below zero, the reporter\'s 1 % of what was taken)', async () => {
  // 100 % of min_stake (10 COIN) asked of a 4-COIN stake: 4 COIN taken.
  const { f, stake } = await slashChain(4n * COIN, { slash_fraction_double_sign_bps: '10000' });
  assert.equal(await stake(), 0n);
  assert.equal((await f.account(deriveAddress(VALIDATOR_KEY.publicKey))).balance, (4n * COIN * 100n) / 10_000n);
  const slashes = await f.chain.queries.state.scan('staking/slash/');
  const record = JSON.parse(new TextDecoder().decode(slashes[0]![1])) as Record<string, { $big: string }>;
  assert.deepEqual([record.amount!.$big, record.reporter_reward!.$big, record.burned!.$big], ['4000000', '40000', '3960000']);
});

test('stake below min_stake after a slash: jailed, not back after jail_blocks, and unjail says why', async () => {
  // Exactly min_stake: 5 % of it taken leaves 9.5 COIN.
  const { f, block, stake } = await slashChain(10n * COIN, {});
  assert.equal(await stake(), 10n * COIN - 500_000n);
  while (f.chain.head.height < block.header.height + 3) await f.block();
  await f.block();
  assert.deepEqual((await f.chain.queries.validatorSetAt(f.chain.head.height + 2)).map((v) => v.address), ['chain:v0.node'], 'out of the set after jail_blocks: its stake is below min_stake');
  const unjail = signOperation(other, { actor: 'chain:v1.node', target: 'chain:system.node', nonce: Date.now(), body: { address: 'chain:v1.node' } });
  await assert.rejects(f.chain.admitOperation('unjail', unjail, { address: 'chain:v1.node' }, 0), (e: unknown) => {
    assert.ok(isChainError(e));
    assert.equal(e.status, 400);
    assert.match(e.message, /stake 9500000 is below min_stake 10000000/);
    return true;
  });
});
