/**
 * What other code may import of staking (test/sdk-boundary.test.ts refuses any other file of it):
 * the methods it offers other plugins (self-stake for governance's weights and quorum base).
 */
export { stakingMethods, type SelfStake } from './methods.js';
