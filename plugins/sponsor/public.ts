/**
 * What other code may import of the sponsor plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): its bodies' schemas, where a sponsor's pool is (`poolAddress`: an account, which
 * clients and the supply check read like any other) and its events. It offers no methods.
 */
export { AllowSchema, DisallowSchema, PoolMoveSchema } from './schemas.js';
export { poolAddress } from './store.js';
export { sponsorAllowed, sponsorDeposited, sponsorDisallowed, sponsorWithdrew } from './events.js';
