import { Type, type TSchema } from '@sinclair/typebox';
import { defineRoute, type DeclaredRoute, type RouteTable } from '../../kernel/sdk.js';
import { passThrough, shardedRead, writeShard } from './proxy-routes.js';
import { CROSS_SHARD_PATHS } from './cross-shard.js';
import { QueueShardQuery, ShardQuery } from './shard-query.js';
import type { GatewayServices } from './services.js';

const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
const Record_ = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });
const Paging = { limit: Type.Optional(Type.Integer({ minimum: 1, 'x-cap': 100 })), offset: Type.Optional(Count()) };
const IdParams = Type.Object({ id: Type.String({ description: 'the lock id: the cross-shard transaction\'s hash' }) });
const ReceiptParams = Type.Object({ source_shard: Count('the lock\'s source shard'), id: Type.String({ description: 'the lock id' }) });
const Bundle = (record: 'lock' | 'receipt', field: 'dest_shard' | 'source_shard'): TSchema =>
  Type.Object({ [record]: Type.Object({ [field]: Count(`the gateway routes the bundle by it (decisions.md §73)`) }, { additionalProperties: true }), proof: Record_('§84\'s proven-read object: height, state_root, entries, header, certificate, validators') }, { additionalProperties: true });

/**
 * The cross-shard routes as the gateway forwards them (decisions.md §73, §75–§77), declared here for
 * a build whose xshard plugin does not declare them itself: where it does, its declarations are
 * served (proxy-routes.ts, operation-routes.ts) and these are left out, and either way a request
 * goes where shardedRead and writeShard send it.
 */
export const CROSS_SHARD_ROUTES: readonly DeclaredRoute[] = [
  defineRoute({ method: 'POST', path: CROSS_SHARD_PATHS.commit, summary: 'a lock bundle, to the lock\'s destination shard, which writes the one receipt: committed before the deadline, aborted after (decisions.md §76)', body: Bundle('lock', 'dest_shard'), bodyCheck: 'handler', responses: { 200: Record_('the submission answer (decisions.md §17)'), 400: 'a body without lock.dest_shard, a shard outside the network, or a bundle that does not verify', 409: 'a receipt is already written or pending for the lock' } }),
  defineRoute({ method: 'POST', path: CROSS_SHARD_PATHS.ack, summary: 'a receipt bundle, to the receipt\'s source shard, which settles the lock: committed, or refunded on an abort (decisions.md §76)', body: Bundle('receipt', 'source_shard'), bodyCheck: 'handler', responses: { 200: Record_('the submission answer (decisions.md §17)'), 400: 'a body without receipt.source_shard, a shard outside the network, or a bundle that does not verify', 404: 'no such lock', 409: 'the lock is no longer locked' } }),
  defineRoute({ method: 'GET', path: CROSS_SHARD_PATHS.queue, summary: 'the locks of ?shard=, newest first; without it every shard\'s list in shard order, total their sum (decisions.md §77)', query: Type.Object({ status: Type.Optional(Type.String({ description: 'locked, committed or refunded' })), shard: QueueShardQuery, ...Paging }), responses: { 200: Type.Object({ transfers: Type.Array(Record_('a lock with value_human')), total: Count(), limit: Type.Unknown(), offset: Type.Unknown(), has_more: Type.Boolean() }, { additionalProperties: true }), 400: 'a status or shard outside the rules' } }),
  defineRoute({ method: 'GET', path: CROSS_SHARD_PATHS.clients, summary: 'what the shard of ?shard= trusts of every other shard (decisions.md §72)', query: Type.Object({ shard: ShardQuery, ...Paging }), responses: { 200: Type.Object({ clients: Type.Array(Record_('shard, validators, validators_hash, trusted_height')) }, { additionalProperties: true }), 400: 'a shard outside the network' } }),
  defineRoute({ method: 'GET', path: CROSS_SHARD_PATHS.transfer, summary: 'one lock, from whichever shard holds it (decisions.md §73, §77)', params: IdParams, responses: { 200: Record_('the lock with value_human'), 404: 'no shard holds it' } }),
  defineRoute({ method: 'GET', path: CROSS_SHARD_PATHS.transferProof, summary: 'a lock bundle {lock, proof} from its source shard (decisions.md §75)', params: IdParams, responses: { 200: Record_('{lock, proof}'), 404: 'no shard holds it' } }),
  defineRoute({ method: 'GET', path: CROSS_SHARD_PATHS.receipt, summary: 'one receipt, from whichever shard wrote it (decisions.md §73, §77)', params: ReceiptParams, responses: { 200: Record_('the receipt with value_human'), 404: 'no shard holds it' } }),
  defineRoute({ method: 'GET', path: CROSS_SHARD_PATHS.receiptProof, summary: 'a receipt bundle {receipt, proof} from its destination shard (decisions.md §75)', params: ReceiptParams, responses: { 200: Record_('{receipt, proof}'), 404: 'no shard holds it' } }),
] as DeclaredRoute[];

/** Serves the routes of CROSS_SHARD_ROUTES that no plugin of the build declared (register after the forwarded ones). */
export function registerCrossShardRoutes(routes: RouteTable, s: GatewayServices): void {
  for (const route of CROSS_SHARD_ROUTES) {
    if (routes.has(route.method, route.path)) continue;
    routes.serve(
      route,
      async (req) => {
        const raw = req.raw;
        const answer = route.method === 'GET' ? await shardedRead(s, route.path, raw, undefined) : await s.client.request(s.router.nodesOfShard(writeShard(s, route.path, raw, undefined)), 'POST', route.path, raw.body, raw.bodyText);
        s.metrics.proxied.inc({ route: route.path, status: String(answer.status) });
        return passThrough(answer);
      },
      { tag: 'gateway' },
    );
  }
}
