/**
 * What other code may import of the sentinel (test/sdk-boundary.test.ts refuses any other file of
 * it): the schemas others reuse (the assistant tool server's `ch_get_held` takes its `address`
 * from `HeldListParams`), the signed layouts of confirm and cancel, and its events. It offers no
 * methods.
 */
export { HeldListAnswer, HeldListParams, HeldView, ScoreAnswer, ScoreRequestSchema, TrustListAnswer, TrustListParams, TrustSchema, HeldActionSchema } from './schemas.js';
export { heldMessages } from './operations/held.js';
export { trustAdded, trustRemoved, txAnomaly, txCancelled, txHeld, txRefunded, txReleased } from './events.js';
