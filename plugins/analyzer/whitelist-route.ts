import { Type } from '@sinclair/typebox';
import { defineRoute, notFound, type ReadContext } from '../../kernel/sdk.js';
import { activeSet, tally } from './operators.js';
import { whitelist } from './store.js';

export const WhitelistAnswer = Type.Object({
  bytecode_hash: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('trusted'), Type.Literal('removed')]),
  approvals: Type.Array(Type.String({ description: 'a .node address' }), { description: 'approvals of the pending action (trusting, or removing a trusted hash) by validators active now' }),
  approved_power: Type.Integer({ description: 'their self-stake, ucoin' }),
  total_power: Type.Integer({ description: 'the active set\'s self-stake, ucoin' }),
  trusted_height: Type.Union([Type.Integer(), Type.Null()]),
});

export const whitelistRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/contracts/whitelist/:bytecode_hash',
  summary: 'a bytecode hash on the trusted list or awaiting approvals (decisions.md §49)',
  params: Type.Object({ bytecode_hash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }) }),
  responses: { 200: WhitelistAnswer, 404: 'no operator has approved anything for this hash' },
  proves: (req) => [whitelist.stateKey(req.params.bytecode_hash)],
});

/** Powers stay bigints: the kernel writes them as JSON integers of any size (never through a float). */
export async function whitelistView(ctx: ReadContext, hash: string): Promise<Omit<typeof WhitelistAnswer.static, 'approved_power' | 'total_power'> & { approved_power: bigint; total_power: bigint }> {
  const rec = await whitelist.get(ctx.store, hash);
  if (!rec) throw notFound(`no approval names ${hash}`);
  const t = tally(await activeSet(ctx), rec.approvals);
  return { bytecode_hash: hash, status: rec.status, approvals: t.approvals, approved_power: t.approvedPower, total_power: t.totalPower, trusted_height: rec.trusted_height };
}
