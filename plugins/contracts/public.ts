/**
 * What other code may import of the contracts plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): its methods.
 */
export { contractsMethods } from './methods.js';
