/**
 * What other code may import of the names plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): its routes' and bodies' schemas, its events and the price rule (a client or the
 * gateway shows a price without asking a node).
 */
export { NamePriceSchema, NftRecordSchema, NftSummarySchema, RegisterNameBody, TransferNftBody } from './schemas.js';
export { agentRegistered, nameRegistered, nftTransferred } from './events.js';
export { labelProblem, namePrice, NAME_PRICE_PARAM, type NameKind } from './price.js';
export { NAMES_ROUTES } from './routes.js';
