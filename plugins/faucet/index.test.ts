import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { ConfigError } from '../../kernel/sdk.js';
import { faucetPlugin } from './index.js';

test('a default amount above the faucet\'s max_amount stops start-up instead of refusing every request', async () => {
  await assert.rejects(
    makeChain({ plugins: [faucetPlugin], pluginConfig: [{ name: 'faucet', options: { default_amount: 2_000_000, max_amount: 1_000_000 } }] }),
    (e: Error) => e instanceof ConfigError && /default_amount \(FAUCET_AMOUNT\) 2000000 is above max_amount 1000000/.test(e.message),
  );
  await makeChain({ plugins: [faucetPlugin], pluginConfig: [{ name: 'faucet', options: { default_amount: 1_000_000, max_amount: 1_000_000 } }] });
});
