import { badRequest, type ChainError } from '../errors.js';
import { addressKind, isKeyDerivedAddress, isSystemAddress } from '../crypto/address.js';
import type { ReadContext, RecipientReader } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import { accountsReader } from '../state/accounts.js';
import type { StateSource } from '../state/overlay.js';
import { VALIDATORS_NAMESPACE } from '../state/validator-set.js';
import { ownerOf } from '../auth/authorize.js';

/**
 * Whether a plain transfer may credit `to`. A key-derived address always has an owner (its key);
 * any other address is only a valid recipient once a record makes it someone's (an account with
 * coins or a bound key, a validator). Without this rule coins sent to a typo or to an unclaimed
 * name are lost, or go to whoever binds that name first. Checked at admission and again when the
 * block executes, because a proposer may skip admission.
 */
export async function recipientProblem(hooks: Hooks, ctx: () => ReadContext, source: StateSource, to: string): Promise<ChainError | null> {
  if (isKeyDerivedAddress(to)) return null;
  // Part 1 "Address kinds": `chain:system.<operation>` is reserved to name a signed operation. Some
  // hold coins for their plugin (a sponsor's pool, `chain:system.sponsor-pool.<hex>`), which only
  // that plugin's operations may move: a payment to one (a vault payout, an asset transfer) is
  // refused like one to nobody's address. A plain transaction to a served one is its operation's
  // (admission's targetOf), never a payment.
  if (isSystemAddress(to)) return badRequest(`${to} is not a valid recipient: chain:system.* addresses are reserved to name operations (part 1, Address kinds) and receive no payments`);
  if (await accountsReader(source).exists(to)) return null;
  if ((await source.get(`${VALIDATORS_NAMESPACE}/${to}`)) !== undefined) return null;
  // A plugin that keeps records of this kind (names, nodes, vaults, agents, channels) says whether one exists.
  const kind = addressKind(to);
  const hook = kind === null ? undefined : hooks.recordExists.get(kind);
  if (hook?.isUsed() && (await hook.promise(ctx(), to)) === true) return null;
  return badRequest(`${to} is not a valid recipient: it is neither a key-derived address (chain:<15 hex>.human) nor a record that exists on this chain`);
}

/**
 * The account a registered name stands for now (decisions.md §39: a `.human` name's or an
 * `.agent`'s current owner), as the plugin owning the kind answers `resolveName`; undefined for
 * an address that is no such name (a key-derived address never is).
 */
export async function nameTarget(hooks: Hooks, ctx: () => ReadContext, address: string): Promise<string | undefined> {
  if (isKeyDerivedAddress(address)) return undefined;
  const kind = addressKind(address);
  const hook = kind === null ? undefined : hooks.resolveName.get(kind);
  return hook?.isUsed() ? hook.promise(ctx(), address) : undefined;
}

/**
 * The account a payment to `to` lands in, resolved when it applies: a registered name's current
 * account (§39), a `.node`'s owner (§30: a `.node` holds no spendable balance), else `to` itself
 * (a key-derived address, a vault, an escrow). Ask `recipientProblem` first: this does not judge
 * whether `to` may be paid at all.
 */
export async function payeeOf(hooks: Hooks, ctx: () => ReadContext, source: StateSource, to: string): Promise<string> {
  const named = await nameTarget(hooks, ctx, to);
  if (named !== undefined) return named;
  if (addressKind(to) === 'node') return (await ownerOf(hooks, ctx, source, to)) ?? to;
  return to;
}

/**
 * Why a plain transaction may not be sent from `from` before anyone judges its signature
 * (400): a registered name holds no balance (§39), and an address kind whose plugin says coins
 * leave it only its own way (`AddressKindSpec.sendRefusal`: a vault, §43).
 */
export async function senderProblem(hooks: Hooks, ctx: () => ReadContext, from: string, refusalOfKind: (kind: string) => string | undefined): Promise<ChainError | null> {
  if (isKeyDerivedAddress(from)) return null;
  const kind = addressKind(from);
  const refusal = kind === null ? undefined : refusalOfKind(kind);
  if (refusal !== undefined) return badRequest(`a plain transaction from ${from} is refused: ${refusal}`);
  const named = await nameTarget(hooks, ctx, from);
  if (named !== undefined) return badRequest(`a plain transaction from ${from} is refused: it is a name of ${named} and holds no balance; send from ${named}`);
  return null;
}

export function recipientReader(hooks: Hooks, ctx: () => ReadContext, source: StateSource): RecipientReader {
  return {
    problem: (to) => recipientProblem(hooks, ctx, source, to),
    payee: (to) => payeeOf(hooks, ctx, source, to),
    nameTarget: (address) => nameTarget(hooks, ctx, address),
    customAddress: async (account) => (hooks.accountName.isUsed() ? ((await hooks.accountName.promise(ctx(), account)) ?? '') : ''),
  };
}
