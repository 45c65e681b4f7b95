/**
 * What other code may import of the assets plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): the `_psig` layout a client signs, the operation bodies and answers (the assistant
 * tool server and clients reuse them), the events, the exchange escrow account and the pure
 * arithmetic (quotes and the clearing rule, for clients that price a batch themselves). It offers
 * no methods to other plugins.
 */
export { ASSET_OP_TAG, PSIG_FIELD, assetOpMessage } from './psig.js';
export { AddLiquidityBody, AssetView, CheckSymbolAnswer, CreatePoolBody, ExchangeMoveBody, IssueBody, PoolView, QuoteAnswer, RemoveLiquidityBody, SwapBody, TransferBody, WindowAnswer } from './schemas.js';
export { assetIssued, assetTransferred, batchCleared, dexDeposited, dexWithdrawn, liquidityAdded, liquidityRemoved, poolCreated } from './events.js';
export { EXCHANGE_ESCROW } from './ledger.js';
export { assetId, orderedPair, poolId, TARGET as ASSETS_TARGET } from './ids.js';
export { clearBatch, type BatchSwap, type Clearing, type Outcome } from './clearing.js';
export { isqrt, quoteAlone, swapFees, MAX_AMOUNT } from './math.js';
