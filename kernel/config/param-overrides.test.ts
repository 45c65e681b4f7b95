import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParamRegistry } from '../state/params.js';
import { KERNEL_PARAMS } from '../chain/kernel-params.js';
import { ConfigError } from './env.js';
import { checkParamOverrides } from './param-overrides.js';

const params = new ParamRegistry();
for (const p of KERNEL_PARAMS) params.declare('kernel', p);

test('a parameter override must name a declared parameter and lie in its range, or start-up stops naming it', () => {
  checkParamOverrides({ max_block_gas: '20000' }, params);
  assert.throws(() => checkParamOverrides({ jail_blocks: '50' }, params), (e: Error) => e instanceof ConfigError && /CHAIN_JAIL_BLOCKS \(parameter jail_blocks\): no enabled plugin of this network declares the parameter "jail_blocks"/.test(e.message));
  assert.throws(() => checkParamOverrides({ max_block_gas: '0' }, params), (e: Error) => e instanceof ConfigError && /param_overrides\.max_block_gas: parameter "max_block_gas" must be between 1 and 1000000000, got 0/.test(e.message));
});
