/**
 * What other code may import of the vaults plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): its events and routes. It offers no methods.
 */
export { vaultCreated, proposalCancelled, proposalCreated, proposalExecuted, proposalExpired, proposalSigned } from './events.js';
export { VAULT_ROUTES } from './routes.js';
