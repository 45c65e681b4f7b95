import { ChainError, unauthorized } from '../errors.js';
import { addressKind, deriveAddress } from '../crypto/address.js';
import type { ReadContext } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import type { StateSource } from '../state/overlay.js';
import { VALIDATORS_NAMESPACE } from '../state/validator-set.js';
import { jsonRecord } from '../state/record-codec.js';
import { isMainKey, type PresentedKey } from '../state/key-set.js';
import type { Signer, SignerGrant, SignRequest } from '../context/signer.js';

const validatorCodec = jsonRecord<{ public_key: string }>();

/**
 * The `.human` owner a record address acts through (decisions.md §19): the plugin that owns
 * the address kind answers; a genesis validator's `.node`, which no plugin may have recorded yet,
 * is owned by the address derived from its own key.
 */
export async function ownerOf(hooks: Hooks, ctx: () => ReadContext, source: StateSource, address: string): Promise<string | undefined> {
  const kind = addressKind(address);
  if (kind === null || kind === 'human' || kind === 'system') return undefined;
  const hook = hooks.ownerOf.get(kind);
  const answer = hook?.isUsed() ? await hook.promise(ctx(), address) : undefined;
  if (answer !== undefined) return answer;
  if (kind !== 'node') return undefined;
  const raw = await source.get(`${VALIDATORS_NAMESPACE}/${address}`);
  return raw === undefined ? undefined : deriveAddress(Buffer.from(validatorCodec.decode(raw).public_key, 'hex'));
}

export interface Authorized {
  readonly signer: Signer;
  /** The grant of a non-main signer, whose `onApplied` runs after the transaction applies. */
  readonly grant: SignerGrant | undefined;
}

/**
 * May `key` sign for `req.actor`? In order: a main key of the actor; a main key of the owner the
 * actor acts through; a signer a plugin grants (or refuses with its reason). The same function
 * runs at admission on committed state and in the block on the block's state, so a proposer that
 * skips admission cannot get an unauthorized transaction applied. Refusals are 401 (§31, §37).
 * `ctx` is built only when a plugin is asked: a main key, the common case, needs none.
 */
export async function authorize(hooks: Hooks, ctx: () => ReadContext, source: StateSource, req: SignRequest, key: PresentedKey): Promise<Authorized | ChainError> {
  let account: string | undefined;
  if (await isMainKey(source, req.actor, key)) account = req.actor;
  else {
    const owner = await ownerOf(hooks, ctx, source, req.actor);
    if (owner !== undefined && (await isMainKey(source, owner, key))) account = owner;
  }
  let grant: SignerGrant | undefined;
  if (account === undefined) {
    const answer = hooks.resolveSigner.isUsed() ? await hooks.resolveSigner.promise(ctx(), req) : undefined;
    if (answer instanceof ChainError) return answer;
    if (answer === undefined) {
      return unauthorized(`public key is not bound to ${req.actor}`, 'sign with a main key of the address (its derived key, or the key bound to it), or with its owner\'s for a record address');
    }
    grant = answer;
  }
  const base: Signer = grant
    ? { kind: grant.kind, publicKey: key.hex, account: req.actor, payer: grant.payer ?? req.actor, grantedBy: grant.plugin }
    : { kind: 'main', publicKey: key.hex, account: account!, payer: account!, grantedBy: undefined };
  const payer = hooks.feePayer.isUsed() ? await hooks.feePayer.promise(ctx(), req.tx, base, req.maxFee) : undefined;
  return { signer: payer === undefined ? base : { ...base, payer }, grant };
}
