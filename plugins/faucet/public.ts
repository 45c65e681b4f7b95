/**
 * What other code may import of the faucet (test/sdk-boundary.test.ts refuses any other file of
 * it): the schemas of its requests and answers (a client, the gateway, the assistant tool server
 * reuse them rather than write their own) and its event. It offers no methods.
 */
export { DeriveAnswerSchema, DeriveRequestSchema, FaucetAnswerSchema, FaucetIgnoredFields, FaucetRequestSchema } from './schemas.js';
export { faucetCredited } from './events.js';
