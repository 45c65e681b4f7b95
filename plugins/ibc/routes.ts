import { Type } from '@sinclair/typebox';
import { defineRoute, isAddress, type ReadonlyStore, countedPage, listPage, notFound, pageAnswer, pageQuery, toPage, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { ChannelView, ClientView, DenomView, PacketView, VoucherView } from './schemas.js';
import { channels, clientRoots, clients, denoms, openPackets, packetCount, packetIndex, packets, vouchers } from './store.js';
import { KEPT_ROOTS } from './client.js';
import { channelView, clientView, denomView, packetView, voucherHuman } from './views.js';
import { readSettings, type PacketRecord } from './rules.js';
import { parsePacketId, voucherDenom } from './packets.js';

/** A chain id as the client store keys it; any other text has no client (404), and nothing to prove. */
const CHAIN_ID_RE = /^[a-z0-9-]{1,64}$/;

export const channelsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/ibc/channels',
  summary: 'the IBC channels of this chain (decisions.md §67)',
  query: pageQuery({ default: 20, cap: 100 }),
  responses: { 200: pageAnswer('channels', ChannelView) },
});

export const packetsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/ibc/packets',
  summary: 'packets this chain sent and received, newest first (decisions.md §68)',
  query: pageQuery(
    { default: 20, cap: 100 },
    {
      channel: Type.Optional(Type.String()),
      direction: Type.Optional(Type.Union([Type.Literal('out'), Type.Literal('in')], { description: 'out or in' })),
      status: Type.Optional(Type.String({ description: 'locked, committed, timed_out or received' })),
      kind: Type.Optional(Type.String({ description: 'transfer or attest' })),
      sender: Type.Optional(Type.String()),
      receiver: Type.Optional(Type.String()),
      id: Type.Optional(Type.String({ description: '<source chain id>/<channel>/<sequence>' })),
    },
  ),
  responses: { 200: pageAnswer('packets', PacketView) },
});

export const denomsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/ibc/denoms',
  summary: 'voucher denoms minted on this chain, with their traces and supply (decisions.md §68)',
  query: pageQuery({ default: 20, cap: 100 }),
  responses: { 200: pageAnswer('denoms', DenomView) },
});

export const clientRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/ibc/client/:chainId',
  summary: "this chain's light client of a counterparty: latest verified header, trusted set, usable proof heights (decisions.md §65)",
  params: Type.Object({ chainId: Type.String() }),
  responses: { 200: ClientView, 404: 'no client of that chain' },
  // decisions.md §84: proven by the client's record (the usable heights are listed, not proven).
  proves: (req) => (CHAIN_ID_RE.test(req.params.chainId) ? [clients.stateKey(req.params.chainId)] : []),
});

export const voucherRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/ibc/voucher/:addr',
  summary: 'the vouchers an address holds (decisions.md §68); empty when none',
  params: Type.Object({ addr: Type.String() }),
  query: pageQuery({ default: 20, cap: 100 }),
  responses: { 200: pageAnswer('vouchers', VoucherView) },
});

/** The routes the plugin lists in its definition: the gateway forwards each under its declaration. */
export const IBC_ROUTES = [channelsRoute, packetsRoute, denomsRoute, clientRoute, voucherRoute] as const;


export function serveIbcRoutes(routes: RouteTable, s: NodeServices): void {
  routes.serve(channelsRoute, (req) =>
    s.query.run('ibc', async (ctx) => {
      const { limit, offset } = toPage(req.query);
      // Channels are opened by operators only: the list stays small.
      const all = await channels.scan(ctx.store);
      return listPage('channels', all.map((e) => channelView(e.value)), limit, offset);
    }),
  );
  routes.serve(packetsRoute, (req) =>
    s.query.run('ibc', async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const q = req.query;
      const native = (await readSettings(ctx.store)).native_denom;
      const filtered = [q.channel, q.direction, q.status, q.kind, q.sender, q.receiver, q.id].some((f) => f !== undefined);
      if (!filtered) {
        // The whole list, newest first: one bounded scan and the count, never every record.
        const page = await packets.scan(ctx.store, { reverse: true, limit: offset + limit });
        const total = (await packetCount.get(ctx.store)) ?? 0;
        return countedPage('packets', page.slice(offset).map((e) => packetView(e.value, native)), total, limit, offset);
      }
      const rows = (q.id !== undefined ? await packetsWithId(ctx.store, q.id) : q.status === 'locked' ? await lockedPackets(ctx.store, q.channel) : (await packets.scan(ctx.store, { reverse: true })).map((e) => e.value))
        .filter((p) => (q.channel === undefined || p.channel === q.channel) && (q.direction === undefined || p.direction === q.direction) && (q.status === undefined || p.status === q.status) && (q.kind === undefined || p.kind === q.kind) && (q.sender === undefined || p.sender === q.sender) && (q.receiver === undefined || p.receiver === q.receiver) && (q.id === undefined || p.id === q.id));
      return listPage('packets', rows.map((p) => packetView(p, native)), limit, offset);
    }),
  );
  routes.serve(denomsRoute, (req) =>
    s.query.run('ibc', async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const all = await denoms.scan(ctx.store);
      return listPage('denoms', all.map((e) => denomView(e.value)), limit, offset);
    }),
  );
  routes.serve(clientRoute, (req) =>
    s.query.run('ibc', async (ctx) => {
      const chainId = req.params.chainId;
      const client = CHAIN_ID_RE.test(chainId) ? await clients.get(ctx.store, chainId) : undefined;
      if (client === undefined) throw notFound(`no client of ${chainId}`);
      const roots = await clientRoots.scan(ctx.store, { prefix: [chainId], reverse: true, limit: KEPT_ROOTS });
      return clientView(client, roots.map((e) => e.key[1]).reverse());
    }),
  );
  routes.serve(voucherRoute, (req) =>
    s.query.run('ibc', async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const holder = req.params.addr;
      // Not an address: it holds nothing (§37: lists answer 200, empty).
      const held = isAddress(holder) ? await vouchers.scan(ctx.store, { prefix: [holder] }) : [];
      const rows = [];
      for (const e of held) {
        const d = await denoms.get(ctx.store, e.key[1]);
        if (d === undefined) continue;
        rows.push({ denom: voucherDenom(d.trace), trace: d.trace, amount: e.value, amount_human: voucherHuman(e.value, d.base_denom) });
      }
      return listPage('vouchers', rows, limit, offset);
    }),
  );
}

/**
 * The records (at most one per direction) a packet id names, newest first, through the index
 * rather than a scan: the relayer asks this once per locked packet per poll. An inbound record
 * sits under the channel its id names, as the two ends of a channel share its id (§67).
 */
async function packetsWithId(store: ReadonlyStore, id: string): Promise<PacketRecord[]> {
  const parsed = parsePacketId(id);
  if (parsed === undefined) return [];
  const found: Array<{ n: number; record: PacketRecord }> = [];
  for (const direction of ['out', 'in'] as const) {
    const n = await packetIndex.get(store, direction, parsed.channel, parsed.sequence);
    const record = n === undefined ? undefined : await packets.get(store, n);
    if (n !== undefined && record !== undefined && record.id === id) found.push({ n, record });
  }
  return found.sort((x, y) => y.n - x.n).map((f) => f.record);
}

/** The locked packets, newest first, from the open list (on `channel` when given): a relayer's poll reads these alone. */
async function lockedPackets(store: ReadonlyStore, channel: string | undefined): Promise<PacketRecord[]> {
  const open = (await openPackets.scan(store, { reverse: true })).filter((e) => channel === undefined || e.value === channel);
  const found: PacketRecord[] = [];
  for (const e of open) {
    const record = await packets.get(store, e.key[0]);
    if (record !== undefined) found.push(record);
  }
  return found;
}
