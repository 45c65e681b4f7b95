import type { SupplyDeclaration } from '../../kernel/sdk.js';
import { heldTransfers } from './store.js';

/** The sentinel's part of the supply: a held transfer's coins left the sender and wait in its record until released or refunded. */
export const SENTINEL_SUPPLY: SupplyDeclaration = {
  holdings: [{ name: 'held', description: 'transfers held, not yet released or refunded', sum: async (store) => (await heldTransfers.scan(store)).reduce((n, e) => (e.value.status === 'held' ? n + e.value.value : n), 0n) }],
};
