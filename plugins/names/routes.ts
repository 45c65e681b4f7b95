import { Type } from '@sinclair/typebox';
import { AddressString, countedPage, defineRoute, formatCoin, notFound, pageAnswer, pageQuery, toPage, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { NamePriceSchema, NftRecordSchema, NftSummarySchema } from './schemas.js';
import { NAME_PRICE_PARAM, labelProblem, nameAddress, namePrice } from './price.js';
import { nfts, owned, ownedCount } from './store.js';
import { recordView, summaryView } from './records.js';

// A chain address, checked before the store is read: the store's key layout refuses any other
// text, and that refusal was a 500 for `GET /api/v1/nft/%20` (the route fuzzer, issue 39).
const AddressParams = Type.Object({ address: AddressString });

export const namePriceRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/addresses/human/price',
  summary: 'the price of a .human name by its length (decisions.md §38), and whether it is free',
  query: Type.Object({ name: Type.String({ description: 'the bare label' }) }),
  responses: { 200: NamePriceSchema, 400: 'a missing or invalid label' },
  nodeOnly: true,
  socketMethod: 'human_name_price',
});

export const nftRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/nft/:address',
  summary: 'an NFT (a .human name or .agent) with its whole history of owners',
  params: AddressParams,
  responses: { 200: NftRecordSchema, 404: 'not an NFT: unknown, or a .node, .vault or .app name' },
  socketMethod: 'get_nft',
  // decisions.md §84: proven by the NFT's record (its history is listed, not proven).
  proves: (req) => [nfts.stateKey(req.params.address)],
});

export const nftsOwnedRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/nft/owner/:address',
  summary: 'the NFTs an address owns, by address ascending (without history)',
  params: AddressParams,
  query: pageQuery({ default: 20, cap: 100 }),
  responses: { 200: pageAnswer('nfts', NftSummarySchema) },
  socketMethod: 'get_my_nfts',
});

export const agentRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/agents/:address',
  summary: 'an .agent record (the NFT record of decisions.md §40)',
  params: AddressParams,
  responses: { 200: NftRecordSchema, 404: 'not a registered .agent' },
  proves: (req) => [nfts.stateKey(req.params.address)],
});

/** The routes the gateway proxies (the plugin's `routes`): the price is Node only (part 1), so not listed. */
export const NAMES_ROUTES = [nftRoute, nftsOwnedRoute, agentRoute] as const;

export function serveNamesRoutes(routes: RouteTable, s: NodeServices): void {
  routes.serve(namePriceRoute, (req) =>
    s.query.run('names', async (ctx) => {
      const label = req.query.name;
      const refused = labelProblem(label, 'human');
      if (refused) throw refused;
      const price = namePrice(label.length, await ctx.params.get(NAME_PRICE_PARAM));
      const address = nameAddress(label, 'human');
      return { name: label, address, length: label.length, price: Number(price), price_human: formatCoin(price), available: !(await nfts.has(ctx.store, address)) };
    }),
  );
  const readNft = (address: string, kind?: 'agent') =>
    s.query.run('names', async (ctx) => {
      const rec = await nfts.get(ctx.store, address);
      if (rec === undefined || (kind !== undefined && rec.kind !== kind)) throw notFound(kind === 'agent' ? `${address} is not a registered .agent` : `${address} is not an NFT: only registered .human names and .agent identities are (decisions.md §40)`);
      return recordView(ctx.store, address, rec);
    });
  routes.serve(nftRoute, (req) => readNft(req.params.address));
  routes.serve(agentRoute, (req) => readNft(req.params.address, 'agent'));
  routes.serve(nftsOwnedRoute, (req) =>
    s.query.run('names', async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const owner = req.params.address;
      const total = (await ownedCount.get(ctx.store, owner)) ?? 0;
      const rows = offset >= total ? [] : (await owned.scan(ctx.store, { prefix: [owner], limit: offset + limit })).slice(offset);
      const records = [];
      for (const row of rows) {
        const address = String(row.key[1]);
        const rec = await nfts.get(ctx.store, address);
        if (rec !== undefined) records.push(summaryView(address, rec));
      }
      return countedPage('nfts', records, total, limit, offset);
    }),
  );
}
