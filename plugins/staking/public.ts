/**
 * What other code may import of staking (test/sdk-boundary.test.ts refuses any other file of it):
 * the methods it offers other plugins (self-stake for governance's weights and quorum base), the
 * schemas of its answers and the declarations of its read routes (clients, the assistant tool
 * server, the gateway's forwarding reuse them instead of writing their own).
 */
export { stakingMethods, type SelfStake } from './methods.js';
export { DelegationView, NodeView, RewardView, SlashView, StakingInfo } from './schemas.js';
export { STAKING_ROUTES, delegationsToRoute, myDelegationsRoute, nodeRoute, nodesRoute, rewardsRoute, slashingHistoryRoute, stakingInfoRoute, validatorsRoute } from './routes.js';
export { STAKING_EVENTS } from './events.js';
