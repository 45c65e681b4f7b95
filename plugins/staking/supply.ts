import { eventUcoin, type SupplyDeclaration } from '../../kernel/sdk.js';
import { delegations, stakes } from './store.js';
import { rewardPaid, validatorSlashed } from './events.js';

/**
 * Staking's part of the supply: the coins bonded in stakes and delegations left their owners'
 * accounts (debited) and wait in its records until unstaked; rewards are created, and a slash
 * destroys its burned part (the reporter's part is credited to the reporter).
 */
export const STAKING_SUPPLY: SupplyDeclaration = {
  holdings: [
    { name: 'stakes', description: 'self-stakes, bonded', sum: async (store) => (await stakes.scan(store)).reduce((n, e) => n + e.value.amount, 0n) },
    { name: 'delegations', description: 'delegations, bonded', sum: async (store) => (await delegations.scan(store)).reduce((n, e) => n + e.value.amount, 0n) },
  ],
  minted: (e) => (e.type === rewardPaid.type ? eventUcoin(e.data.amount) : 0n),
  burned: (e) => (e.type === validatorSlashed.type ? eventUcoin(e.data.burned) : 0n),
};
