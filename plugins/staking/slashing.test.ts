import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, VALIDATOR_KEY, wallet } from '../../test/helpers/chain-fixture.js';
import { deriveAddress, toHex } from '../../kernel/sdk.js';
import { stakingPlugin } from './index.js';

const COIN = 1_000_000n;
const other = wallet(131);

test('double-sign evidence: 5 % of min_stake slashed, 1 % of it to the reporter (the proposer\'s owner), the rest burned, jailed for jail_blocks, back after', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin],
    validators: [
      { address: 'chain:v0.node', public_key: toHex(VALIDATOR_KEY.publicKey), stake: String(10_000n * COIN) },
      { address: 'chain:v1.node', public_key: other.publicKeyHex, stake: String(10_000n * COIN) },
    ],
    genesisParams: { min_stake: String(10n * COIN), jail_blocks: '3' },
  });
  const evidence = { hash: '0x' + 'ab'.repeat(32), kind: 'duplicate-vote' as const, validator: 'chain:v1.node', height: 1, round: 0, raw: { test: true } };
  f.chain.evidenceVerifier = async () => evidence; // the consensus layer's verification, taken as passed
  const reporter = deriveAddress(VALIDATOR_KEY.publicKey);
  const p = await f.chain.propose(0, 'chain:v0.node', Date.now(), [evidence]);
  assert.equal(await f.chain.validate(p), null);
  const block = await f.chain.finalize(p);
  const slashed = 10n * COIN * 500n / 10_000n; // 500 000 ucoin
  const reward = slashed * 100n / 10_000n; // 5 000 ucoin
  assert.equal((await f.account(reporter)).balance, reward);
  const stake = JSON.parse(new TextDecoder().decode((await f.chain.store.state.get('staking/stake/chain:v1.node'))!)) as { amount: { $big: string } };
  assert.equal(BigInt(stake.amount.$big), 10_000n * COIN - slashed);
  assert.deepEqual((await f.chain.validatorSetAt(f.chain.head.height + 2)).map((v) => v.address), ['chain:v0.node'], 'jailed: voting power 0 (from the set-change delay on)');
  const node = JSON.parse(new TextDecoder().decode((await f.chain.store.state.get('staking/node/chain:v1.node'))!)) as { jailed_until: number };
  assert.equal(node.jailed_until, block.header.height + 3);
  while (f.chain.head.height < node.jailed_until) await f.block();
  assert.deepEqual((await f.chain.validatorSetAt(f.chain.head.height + 2)).map((v) => [v.address, v.power]), [['chain:v0.node', 10_000n * COIN], ['chain:v1.node', 10_000n * COIN - slashed]], 'back after jail_blocks, its stake still above min_stake');
});
