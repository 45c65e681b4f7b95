import { Type } from '@sinclair/typebox';
import { defineRoute, firstRefusal, listPage, notFound, pageAnswer, pageQuery, toPage, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { clients, locks, receipts, lockKey, receiptKey, type Lock } from './store.js';
import { ACK_TX, COMMIT_TX, HEADERS_TX, HeaderUpdate, LockBundle, RELAY_SENDER, ReceiptBundle, judgeAck, judgeCommit, judgeHeaders, type LockBundleBody, type ReceiptBundleBody } from './rules.js';
import { ClientView, LockView, ReceiptView, SubmittedView, clientView, lockView, receiptView } from './views.js';

const LockId = Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'the lock id: the transaction hash' });
const ShardParam = Type.Integer({ minimum: 0, maximum: 1023 });
const PAGE = { default: 20, cap: 100 } as const;
const ProofView = Type.Object({}, { additionalProperties: true, description: "decisions.md §84's proven-read object" });

export const queueRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/cross-shard/queue',
  summary: 'the locks whose source is this shard, newest first (lock_height descending, then id), decisions.md §77',
  query: pageQuery(PAGE, { status: Type.Optional(Type.Union([Type.Literal('locked'), Type.Literal('committed'), Type.Literal('refunded')], { description: 'locked, committed or refunded' })) }),
  responses: { 200: pageAnswer('transfers', LockView), 400: 'a status other than locked, committed or refunded, or a bad page' },
});

export const transferRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/cross-shard/transfers/:id',
  summary: 'one lock of this shard, with value_human (decisions.md §77)',
  params: Type.Object({ id: LockId }),
  responses: { 200: LockView, 404: 'no lock of that id on this shard' },
  // decisions.md §84 (a single record of a state plugin); `/proof` is §75's bundle of the same entry.
  proves: (req) => [lockKey(req.params.id)],
});

export const transferProofRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/cross-shard/transfers/:id/proof',
  summary: "a lock's bundle at this node's head: the lock and its proof at height head − 1 (decisions.md §75)",
  params: Type.Object({ id: LockId }),
  responses: { 200: Type.Object({ lock: Type.Object({}, { additionalProperties: true }), proof: ProofView }), 404: 'no lock of that id on this shard', 503: 'no block is committed yet' },
});

export const receiptRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/cross-shard/receipts/:source_shard/:id',
  summary: "the receipt this shard wrote for another shard's lock, with value_human (decisions.md §77)",
  params: Type.Object({ source_shard: ShardParam, id: LockId }),
  responses: { 200: ReceiptView, 404: 'no receipt for that lock on this shard' },
  proves: (req) => [receiptKey(req.params.source_shard, req.params.id)],
});

export const receiptProofRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/cross-shard/receipts/:source_shard/:id/proof',
  summary: "a receipt's bundle at this node's head: the receipt and its proof at height head − 1 (decisions.md §75)",
  params: Type.Object({ source_shard: ShardParam, id: LockId }),
  responses: { 200: Type.Object({ receipt: Type.Object({}, { additionalProperties: true }), proof: ProofView }), 404: 'no receipt for that lock on this shard', 503: 'no block is committed yet' },
});

export const clientsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/cross-shard/clients',
  summary: "this shard's clients of the other shards: the set each trusts and from which height (decisions.md §72)",
  query: pageQuery(PAGE),
  responses: { 200: pageAnswer('clients', ClientView) },
});

export const commitRoute = defineRoute({
  method: 'POST',
  path: '/api/v1/cross-shard/commit',
  summary: "writes the destination's one receipt for a proven lock: committed before its deadline, else aborted (decisions.md §76); unsigned and free",
  body: LockBundle,
  bodyCheck: 'handler',
  responses: {
    200: SubmittedView,
    400: "a malformed bundle, a lock for another destination, a header of another shard than the lock's source, or a bundle that does not verify (naming what failed)",
    409: 'a receipt for the lock is already written (naming its outcome) or pending',
  },
});

export const ackRoute = defineRoute({
  method: 'POST',
  path: '/api/v1/cross-shard/ack',
  summary: 'settles a lock on a proven receipt of its destination: committed, or refunded to its sender on an abort (decisions.md §76); unsigned and free',
  body: ReceiptBundle,
  bodyCheck: 'handler',
  responses: {
    200: SubmittedView,
    400: "a malformed bundle, a receipt for another source, a header of another shard than the lock's destination, or a bundle that does not verify (naming what failed)",
    404: 'no lock of that id on this shard',
    409: 'the lock is already committed or refunded (naming which), or an ack for it is pending',
  },
});

export const headersRoute = defineRoute({
  method: 'POST',
  path: '/api/v1/cross-shard/headers',
  summary: "moves this shard's client of another shard to the next set a header certified by its trusted set names (decisions.md §72); unsigned and free",
  body: HeaderUpdate,
  bodyCheck: 'handler',
  nodeOnly: true,
  responses: { 200: SubmittedView, 400: 'a header not certified by more than 2/3 of the trusted set, below trusted_height, naming no new set, or a next set that does not hash to it' },
});

/** The routes the gateway forwards (part 1); the header update is Node only. */
export const XSHARD_ROUTES = [queueRoute, transferRoute, transferProofRoute, receiptRoute, receiptProofRoute, clientsRoute, commitRoute, ackRoute] as const;

/**
 * The key a pending relay write will write and the outcome it will give it, read from its body
 * as admitted (admission checked it against the same bundle schema, with the same compiled
 * check): a commit's receipt is `committed` when its proof is from before the lock's deadline,
 * else `aborted`; an ack settles its lock `committed` or `refunded` as its receipt says.
 */
function pendingOutcome(type: string, body: Readonly<Record<string, unknown>>): [key: string, outcome: string] | undefined {
  if (type === COMMIT_TX) {
    if (!isLockBundle(body)) return undefined;
    const { lock, proof } = body;
    return [receiptKey(lock.source_shard, lock.id), proof.height < lock.deadline_height ? 'committed' : 'aborted'];
  }
  if (!isReceiptBundle(body)) return undefined;
  return [lockKey(body.receipt.id), body.receipt.outcome === 'committed' ? 'committed' : 'refunded'];
}

const isLockBundle = (body: unknown): body is LockBundleBody => firstRefusal(LockBundle, body) === undefined;
const isReceiptBundle = (body: unknown): body is ReceiptBundleBody => firstRefusal(ReceiptBundle, body) === undefined;

/** Newest first: lock_height descending, then id. */
function newestFirst(a: Lock, b: Lock): number {
  return b.lock_height - a.lock_height || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function serveXshardRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  // A relay write waiting in this node's pool, whichever node it was posted to (relays gossip), by
  // the state key it will write: a second one for the same key is 409 naming the outcome at once
  // (§76 "written or pending") instead of a duplicate's 400 or a failure in the block.
  const pendingFor = (type: string) => (key: string): string | undefined => {
    for (const { body } of s.chain.pendingSystem(type)) {
      const coming = pendingOutcome(type, body);
      if (coming !== undefined && coming[0] === key) return coming[1];
    }
    return undefined;
  };
  const submit = async (type: string, body: Record<string, unknown>) => {
    const tx = await s.chain.admitSystem(type, RELAY_SENDER, RELAY_SENDER, 0n, body, s.now());
    return { success: true, status: 'pending', tx_hash: tx.hash, estimated_block: s.chain.head.height + 1 };
  };

  routes.serve(queueRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const status = req.query.status;
      const all = (await locks.scan(ctx.store)).map((e) => e.value).filter((l) => status === undefined || l.status === status);
      return listPage('transfers', all.sort(newestFirst).map(lockView), limit, offset);
    }),
  );
  routes.serve(transferRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const lock = await locks.get(ctx.store, req.params.id);
      if (!lock) throw notFound(`no lock ${req.params.id} on shard ${s.shards.id}`);
      return lockView(lock);
    }),
  );
  routes.serve(receiptRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const receipt = await receipts.get(ctx.store, req.params.source_shard, req.params.id);
      if (!receipt) throw notFound(`no receipt for lock ${req.params.id} of shard ${req.params.source_shard} on shard ${s.shards.id}`);
      return receiptView(receipt);
    }),
  );
  // §75: the record as stored at head − 1, read from the proof's own entry, so record and proof never disagree.
  const bundle = async (key: string, missing: string) => {
    const proof = await s.proveKeys([key]);
    const entry = proof.entries[0]!;
    if (entry.value_hex === null) throw notFound(missing);
    return { record: JSON.parse(Buffer.from(entry.value_hex, 'hex').toString('utf8')) as Record<string, unknown>, proof };
  };
  routes.serve(transferProofRoute, async (req) => {
    const { record, proof } = await bundle(lockKey(req.params.id), `no lock ${req.params.id} on shard ${s.shards.id} at the proven height`);
    return { lock: record, proof };
  });
  routes.serve(receiptProofRoute, async (req) => {
    const { record, proof } = await bundle(receiptKey(req.params.source_shard, req.params.id), `no receipt for lock ${req.params.id} of shard ${req.params.source_shard} at the proven height`);
    return { receipt: record, proof };
  });
  routes.serve(clientsRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const { limit, offset } = toPage(req.query);
      return listPage('clients', (await clients.scan(ctx.store)).map((e) => clientView(e.value)), limit, offset);
    }),
  );
  routes.serve(commitRoute, async (req) => {
    const body = req.body as unknown as Record<string, unknown>;
    await s.query.run(plugin, (ctx) => judgeCommit(ctx, body, pendingFor(COMMIT_TX)));
    return submit(COMMIT_TX, { lock: body.lock, proof: body.proof });
  });
  routes.serve(ackRoute, async (req) => {
    const body = req.body as unknown as Record<string, unknown>;
    await s.query.run(plugin, (ctx) => judgeAck(ctx, body, pendingFor(ACK_TX)));
    return submit(ACK_TX, { receipt: body.receipt, proof: body.proof });
  });
  routes.serve(headersRoute, async (req) => {
    const body = req.body as unknown as Record<string, unknown>;
    await s.query.run(plugin, (ctx) => judgeHeaders(ctx, body));
    return submit(HEADERS_TX, { header: body.header, certificate: body.certificate, validators: body.validators, next_validators: body.next_validators });
  });
}
