import { badRequest, defineOperation } from '../../../kernel/sdk.js';
import { RotateSchema } from '../schemas.js';
import { identityMessages, ownLayout } from '../messages.js';
import { currentKeys, recordRemoved, rememberDerived } from '../keys.js';
import { keysRotated } from '../events.js';

export const IDENTITY_TARGET = 'chain:system.identity';

/**
 * `POST /api/v1/identity/rotate`, signed `ch-rotate|<owner>|<add>|<remove>|<nonce>` by a main
 * key: adds one key, removes one, or both; `version` rises by one. A removed key, the derived one
 * included, is refused from then on like any unknown key, and the session keys it granted end.
 */
export const rotateKey = defineOperation({
  name: 'rotate_key',
  description: 'adds and/or removes a main key of the account',
  routes: [{ method: 'POST', path: '/api/v1/identity/rotate' }],
  schema: RotateSchema,
  signsFor: IDENTITY_TARGET,
  value: null,
  gas: 60,
  signing: { message: ownLayout(identityMessages.rotate) },
  mainKeyOnly: 'rotate keys',
  async check(ctx, op) {
    const { add, remove } = op.body;
    if (add === '' && remove === '') return badRequest('rotate: add or remove must name a key');
    if (add !== '' && add === remove) return badRequest('rotate: add and remove name the same key');
    const keys = (await currentKeys(ctx, op.actor, op.signer)).keys;
    if (add !== '' && keys.includes(add)) return badRequest('rotate: the key to add is already a main key of the account');
    if (remove !== '' && !keys.includes(remove)) return badRequest('rotate: the key to remove is not a main key of the account');
    if (remove !== '' && add === '' && keys.length === 1) return badRequest('rotate: removing the only main key would lock the account');
    return undefined;
  },
  async execute(ctx, op) {
    const { add, remove } = op.body;
    const now = await currentKeys(ctx, op.actor, op.signer);
    await rememberDerived(ctx, op.actor, op.signer);
    const keys = now.keys.filter((k) => k !== remove);
    if (add !== '') keys.push(add);
    ctx.accounts.setMainKeys(op.actor, { keys, version: now.version + 1 });
    if (remove !== '') recordRemoved(ctx, op.actor, remove);
    keysRotated.emit(ctx, { address: op.actor, added: add, removed: remove, version: now.version + 1 });
  },
});
