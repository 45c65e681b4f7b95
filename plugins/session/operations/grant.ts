import { badRequest, defineOperation, deriveAddress, isAddress, parseHex, type ReadContext } from '../../../kernel/sdk.js';
import { GrantSchema } from '../schemas.js';
import { grants, keyId, MAX_GRANTS_PER_ACCOUNT, type SessionGrant } from '../store.js';
import { sessionGranted } from '../events.js';

export const SESSION_TARGET = 'chain:system.session';

/** Rules a grant must meet, judged at admission and again in the block. */
async function grantProblem(ctx: ReadContext, body: { account: string; session_pk: string; scope: '*' | string[]; expiry_block: number }, signerKey: string) {
  if (body.scope !== '*') {
    const bad = body.scope.find((a) => !isAddress(a));
    if (bad !== undefined) return badRequest(`scope: ${JSON.stringify(bad)} is not a chain address`);
    if (new Set(body.scope).size !== body.scope.length) return badRequest('scope lists an address twice');
  }
  if (body.expiry_block <= ctx.height) return badRequest(`expiry_block ${body.expiry_block} is not above block ${ctx.height}: a grant is valid in blocks below expiry_block`);
  const pk = body.session_pk.toLowerCase();
  if (pk === signerKey) return badRequest('session_pk is a main key of the account: a session key must be another key');
  const main = await ctx.accounts.mainKeys(body.account);
  if (main.keys.includes(pk)) return badRequest('session_pk is a main key of the account: a session key must be another key');
  const existing = await grants.scan(ctx.store, { prefix: [body.account] });
  const replaces = await grants.has(ctx.store, body.account, keyId(pk));
  if (!replaces && existing.length >= MAX_GRANTS_PER_ACCOUNT) return badRequest(`an account holds at most ${MAX_GRANTS_PER_ACCOUNT} session grants; revoked and expired ones count until replaced`);
  return undefined;
}

/**
 * `POST /api/v1/session/grant`: the account's main key lets another key sign for it, within a
 * scope, a total cap and below a block. A grant for a key already granted replaces it (spent
 * starts again at 0): only a main key can do that, and it could as well revoke and grant anew.
 */
export const grantSession = defineOperation({
  name: 'grant_session',
  description: 'grants a session key: scope (* or destinations), total spend cap, expiry block',
  routes: [{ method: 'POST', path: '/api/v1/session/grant' }],
  schema: GrantSchema,
  signsFor: SESSION_TARGET,
  value: null,
  gas: 50,
  mainKeyOnly: 'grant session keys',
  async check(ctx, op) {
    return grantProblem(ctx, op.body, op.signer.publicKey);
  },
  async execute(ctx, op) {
    const pk = op.body.session_pk.toLowerCase();
    const grant: SessionGrant = {
      account: op.actor,
      session_pk: pk,
      scope: op.body.scope,
      cap: BigInt(op.body.cap),
      spent: 0n,
      expiry_block: op.body.expiry_block,
      granted_by: op.signer.publicKey,
      granted_by_derived: deriveAddress(parseHex(op.signer.publicKey)!) === op.actor,
      granted_height: ctx.block.height,
      revoked_height: null,
    };
    // Two public keys' hex (the session key, the main key that granted it), sized by the protocol: not priced as growth (kernel/chain/state-growth.ts).
    if (!(await grants.get(ctx.store, op.actor, keyId(pk)))) ctx.protocolSizedBytes(pk.length + grant.granted_by.length);
    grants.set(ctx.store, op.actor, keyId(pk), grant);
    sessionGranted.emit(ctx, { account: op.actor, session_pk: pk, scope: op.body.scope, cap: op.body.cap, expiry_block: op.body.expiry_block });
  },
});
