/**
 * What other code may import of the gateway (test/sdk-boundary.test.ts refuses any other file of
 * it): the services a plugin of the gateway process (the explorer) receives as its runtime.
 */
export type { GatewayServices } from './services.js';
