import { Type } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';

/**
 * The NFT records (decisions.md §40): every registered `.human` name and `.agent`, by its name
 * address. `history_count` numbers the history entries, so the history is read without a count scan.
 */
export const nfts = defineStore('names', {
  name: 'nfts',
  description: 'a registered .human name or .agent (an NFT): its owner, registrant, price and heights',
  key: ['nft', keyPart.address('address')],
  value: Type.Object({
    kind: Type.Union([Type.Literal('human'), Type.Literal('agent')]),
    name: Type.String(),
    owner: Type.String(),
    registrant: Type.String(),
    registered_height: Type.Integer({ minimum: 0 }),
    acquired_height: Type.Integer({ minimum: 0 }),
    price: Type.BigInt({ minimum: 0n }),
    history_count: Type.Integer({ minimum: 1 }),
  }),
});

/** Every change of an NFT's owner, oldest first (§40 `history`). */
export const nftHistory = defineStore('names', {
  name: 'nft_history',
  description: 'one change of an NFT\'s owner: its registration or a transfer',
  key: ['nft_history', keyPart.address('address'), keyPart.integer('seq')],
  value: Type.Object({
    type: Type.Union([Type.Literal('register'), Type.Literal('transfer')]),
    height: Type.Integer({ minimum: 0 }),
    tx_hash: Type.String(),
    from: Type.String(),
    to: Type.String(),
  }),
});

/** What an account owns, by NFT address (`GET /api/v1/nft/owner/:address`, ascending). */
export const owned = defineStore('names', {
  name: 'owned',
  description: 'an NFT an account owns',
  key: ['owned', keyPart.address('owner'), keyPart.address('address')],
  value: Type.Object({ acquired_height: Type.Integer({ minimum: 0 }) }),
});

/** How many NFTs an account owns: the list's `total` without reading the list. */
export const ownedCount = defineStore('names', {
  name: 'owned_count',
  description: 'the number of NFTs an account owns',
  key: ['owned_count', keyPart.address('owner')],
  value: Type.Integer({ minimum: 1 }),
});

/**
 * The `.human` names an account owns, by acquisition height then address: the first is its
 * `custom_address` (§39, the name it has owned longest), read with a scan of one row.
 */
export const humanTenure = defineStore('names', {
  name: 'human_tenure',
  description: 'a .human name an account owns, ordered by when it acquired it (custom_address is the first)',
  key: ['tenure', keyPart.address('owner'), keyPart.integer('acquired_height'), keyPart.address('address')],
  value: Type.Object({}),
});

/**
 * The `.app` names (decisions.md §42): a label bound to a deployed contract, owned by the
 * contract's owner. Not NFTs: they never move, so they have no history and no owner list.
 *
 * The fields a contract record's answer shares (`address` the contract's, `app_name`, `owner`)
 * carry the answer's values, so a proven read of `GET /api/v1/contracts/<name>.app` (§84–85),
 * which proves this record beside the contract's, binds the name to the contract by §85's field
 * rule alone; the label is `label`, not `name` (a contract's `name` is its own).
 */
export const apps = defineStore('names', {
  name: 'apps',
  description: 'a registered .app name: the contract it names (address) and its owner',
  key: ['app', keyPart.address('app_name')],
  value: Type.Object({
    label: Type.String(),
    app_name: Type.String({ description: 'chain:<label>.app, the key' }),
    address: Type.String({ description: 'the contract it names, chain:<10 hex>.app' }),
    owner: Type.String(),
    registered_height: Type.Integer({ minimum: 0 }),
    price: Type.BigInt({ minimum: 0n }),
    tx_hash: Type.String(),
  }),
});

/** The full state key of an `.app` name's record, for a proven read that resolved the name (§84). */
export function appRecordStateKey(appName: string): string {
  return apps.stateKey(appName);
}

/** The `.app` name of a contract: one name per contract (§42, 409), and the contract record's `app_name`. */
export const appOfContract = defineStore('names', {
  name: 'app_of_contract',
  description: 'the .app name a contract has',
  key: ['app_of', keyPart.address('contract')],
  value: Type.String(),
});
