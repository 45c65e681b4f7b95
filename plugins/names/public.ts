/**
 * What other code may import of the names plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): its routes' and bodies' schemas, its events and the price rule (a client or the
 * gateway shows a price without asking a node), and its methods (the contracts plugin resolves
 * `.app` names through them, and proves a resolved name by its record's state key).
 */
export { NamePriceSchema, NftRecordSchema, NftSummarySchema, RegisterNameBody, TransferNftBody } from './schemas.js';
export { agentRegistered, appNameRegistered, nameRegistered, nftTransferred } from './events.js';
export { labelProblem, namePrice, NAME_PRICE_PARAM, type NameKind } from './price.js';
export { NAMES_ROUTES } from './routes.js';
export { namesMethods } from './methods.js';
export { appRecordStateKey } from './store.js';
