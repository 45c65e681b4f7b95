import { addressKind, definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { apps, appOfContract, humanTenure, nftHistory, nfts, owned, ownedCount } from './store.js';
import { agentRegistered, appNameRegistered, nameRegistered, nftTransferred } from './events.js';
import { registerAgent, registerHuman } from './operations/register-name.js';
import { transferNft } from './operations/transfer-nft.js';
import { registerApp } from './operations/register-app.js';
import { namesMethods } from './methods.js';
import { NAME_PRICE_DEFAULT, NAME_PRICE_MAX, NAME_PRICE_PARAM } from './price.js';
import { customAddressOf } from './records.js';
import { NAMES_ROUTES, serveNamesRoutes } from './routes.js';

/**
 * Registered names as NFTs (decisions.md §38–41): custom `.human` names and `.agent` identities,
 * bought at a price by length that is burned, received at (a plain transfer to one credits its
 * current owner, resolved when the block applies it) and traded by `nft/transfer`. It answers the
 * kernel's `resolveName`, `recordExists` and `accountName` for its kinds, and `ownerOf` for agents, so the kernel's plain
 * transfer, `GET /api/v1/accounts/<name>` and `custom_address` follow the records. `.app` names
 * (§42) bind a label to a contract; the contracts plugin resolves them through `namesMethods`.
 */
export const namesPlugin = definePlugin<Record<string, never>, NodeServices>({
  name: 'names',
  kind: 'state',
  description: 'custom .human names and .agent identities: registered at a burned price, NFTs, resolved by transfers',
  stores: [nfts, nftHistory, owned, ownedCount, humanTenure, apps, appOfContract],
  events: [nameRegistered, agentRegistered, appNameRegistered, nftTransferred],
  operations: [registerHuman, registerAgent, registerApp, transferNft],
  methods: namesMethods,
  routes: NAMES_ROUTES,
  params: [{ key: NAME_PRICE_PARAM, default: NAME_PRICE_DEFAULT, min: 1n, max: NAME_PRICE_MAX, description: 'price of a name of 8 characters or more, in ucoin; shorter ones cost base × 2^(8 − length) (decisions.md §38)', unit: 'ucoin' }],
  register(api) {
    for (const kind of ['human', 'agent'] as const) {
      // A key-derived address is never asked: only registered names.
      api.hooks.resolveName.for(kind).tapPromise(api.name, async (ctx, address) => (await nfts.get(ctx.store, address))?.owner);
      api.hooks.recordExists.for(kind).tapPromise(api.name, async (ctx, address) => ((await nfts.has(ctx.store, address)) ? true : undefined));
    }
    // An .agent acts through its owner (decisions.md §19): the owner's main key signs as it. A
    // .human name never acts (§39: its owner signs as its key-derived address), so only agents.
    api.hooks.ownerOf.for('agent').tapPromise(api.name, async (ctx, address) => (await nfts.get(ctx.store, address))?.owner);
    api.hooks.accountName.tapPromise(api.name, async (ctx, account) => (addressKind(account) === 'human' ? customAddressOf(ctx.store, account) : undefined));
    api.hooks.routes.tap(api.name, (routes) => serveNamesRoutes(routes, api.services));
  },
});
