import { badRequest, type ChainError } from '../errors.js';
import { addressKind, isKeyDerivedAddress } from '../crypto/address.js';
import type { Hooks, ReadContext } from '../hooks.js';
import { accountsReader } from '../state/accounts.js';
import type { StateSource } from '../state/overlay.js';
import { VALIDATORS_NAMESPACE } from './validator-set.js';

/**
 * Whether a plain transfer may credit `to`. A key-derived address always has an owner (its key);
 * any other address is only a valid recipient once a record makes it someone's (an account with
 * coins or a bound key, a validator). Without this rule coins sent to a typo or to an unclaimed
 * name are lost, or go to whoever binds that name first. Checked at admission and again when the
 * block executes, because a proposer may skip admission.
 */
export async function recipientProblem(hooks: Hooks, ctx: () => ReadContext, source: StateSource, to: string): Promise<ChainError | null> {
  if (isKeyDerivedAddress(to)) return null;
  if (await accountsReader(source).exists(to)) return null;
  if ((await source.get(`${VALIDATORS_NAMESPACE}/${to}`)) !== undefined) return null;
  // A plugin that keeps records of this kind (names, nodes, vaults, agents, channels) says whether one exists.
  const kind = addressKind(to);
  const hook = kind === null ? undefined : hooks.recordExists.get(kind);
  if (hook?.isUsed() && (await hook.promise(ctx(), to)) === true) return null;
  return badRequest(`${to} is not a valid recipient: it is neither a key-derived address (chain:<15 hex>.human) nor a record that exists on this chain`);
}
