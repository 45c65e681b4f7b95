/**
 * What other code may import from the xshard plugin: the wire schemas of its bundles and answers,
 * the relay write types, and the state keys a bundle proves (a relayer builds requests with them).
 * Bundles are verified by the kernel light client (`lightClient.verifyProvenRead`).
 */
export { HeaderUpdate, LockBundle, ReceiptBundle, ACK_TX, COMMIT_TX, HEADERS_TX, RELAY_GAS } from './rules.js';
export { ClientView, LockView, ReceiptView } from './views.js';
export { lockKey, receiptKey } from './store.js';
export { RELAY_TIMEOUT_PARAM } from './params.js';
