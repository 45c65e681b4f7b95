import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { kernelRoutes } from '../../test/helpers/kernel-routes.js';
import { ConfigError } from '../../kernel/sdk.js';
import { faucetPlugin } from './index.js';

test('a default amount above the faucet\'s max_amount stops start-up instead of refusing every request', async () => {
  await assert.rejects(
    makeChain({ plugins: [faucetPlugin], pluginConfig: [{ name: 'faucet', options: { default_amount: 2_000_000, max_amount: 1_000_000 } }] }),
    (e: Error) => e instanceof ConfigError && /default_amount \(FAUCET_AMOUNT\) 2000000 is above max_amount 1000000/.test(e.message),
  );
  await makeChain({ plugins: [faucetPlugin], pluginConfig: [{ name: 'faucet', options: { default_amount: 1_000_000, max_amount: 1_000_000 } }] });
});

test('faucet_max_amount, an amount of ucoin, shows its *_human strings in GET /api/v1/governance/params (decisions.md §21); a count does not', async () => {
  const f = await makeChain({ plugins: [faucetPlugin], pluginConfig: [{ name: 'faucet', options: {} }] });
  const answer = await kernelRoutes(f)('/api/v1/governance/params', {});
  const params = answer.params as Record<string, Record<string, unknown>>;
  assert.deepEqual(
    [params.faucet_max_amount!.value_human, params.faucet_max_amount!.default_human, params.faucet_max_amount!.min_human, params.faucet_max_amount!.max_human],
    ['1000 COIN', '1000 COIN', '0.000001 COIN', '1000000000 COIN'],
  );
  assert.equal(params.max_block_gas!.value_human, undefined, 'max_block_gas counts gas, not ucoin');
});
