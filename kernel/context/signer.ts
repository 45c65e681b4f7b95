import { unauthorized, type ChainError } from '../errors.js';
import type { SignerKind, Tx } from '../model/types.js';
import type { TxContext } from './contexts.js';

export type { SignerKind };

export interface Signer {
  readonly kind: SignerKind;
  /** Lowercase hex public key that signed. */
  readonly publicKey: string;
  /** The account acting: the actor, or the `.human` owner a record address acts through (§19). */
  readonly account: string;
  /** Who pays the fee: the signing account, or a sponsor a plugin named. */
  readonly payer: string;
  /** The plugin that granted a signer other than a main key. */
  readonly grantedBy: string | undefined;
}

/** What authorization is asked: may `publicKey` sign this for `actor`? */
export interface SignRequest {
  readonly actor: string;
  readonly publicKey: string;
  readonly tx: Tx;
  /** The operation's name, or undefined for a plain transfer. */
  readonly operation: string | undefined;
  /**
   * The operation's declared `mainKeyOnly` action: a plugin that grants other keys refuses them
   * with `requireMainKey` before judging its grant, so a narrow grant does not hide the real reason.
   */
  readonly mainKeyOnly?: string | undefined;
  /**
   * The ucoin the transaction declares it takes from the actor's account besides its fee: a plain
   * transaction's value, an operation's `debits` (its signed value unless it declares otherwise:
   * `register_node` bonds `min_stake`). What a session key's cap is judged against before anything
   * is charged (decisions.md §95); what it really took comes to the grant's `onApplied`.
   */
  readonly debit: bigint;
  /**
   * At admission, what the actor's other pending transactions signed by this same key declare
   * they debit (their `debit` when each was admitted): a grant with a cap judges `debit` on top of
   * them, so two pending transactions cannot together pass a cap that each passes alone (one would
   * be admitted, then fail in its block and leave a nonce gap). 0 in a block, where each one
   * applied before is already in state. A function: only a plugin that judges a grant asks it.
   */
  readonly pendingDebit: () => bigint;
  /** The largest fee the transaction can be charged: its gas limit times its price. */
  readonly maxFee: bigint;
}

/**
 * What a transaction really did with the signing account's coins, counted by the kernel while it
 * ran: every ucoin a handler took from the account (the kernel's transfer, `ctx.accounts.debit`
 * and `transfer` out of it, a hold), fees excluded.
 */
export interface AppliedTransaction {
  readonly debited: bigint;
}

/**
 * A plugin's answer to a key that is not a main key of the actor: a grant with its kind (a
 * session key within scope, a vault member), or a refusal naming the limit (401, §31). A grant
 * may record its use once the transaction has applied (a session key's spent amount), inside the
 * transaction's own rollback scope.
 */
export interface SignerGrant {
  readonly kind: Exclude<SignerKind, 'main'>;
  /** The granting plugin (the SDK's `api.auth.signers` fills it in). */
  readonly plugin: string;
  /** Who pays the fee when not the actor (a vault member's operation is paid by the vault). */
  readonly payer?: string;
  /**
   * Runs in the block after the transaction applied, on its rollback scope, with the granting
   * plugin's context and what the transaction took from the account; a throw fails the
   * transaction (its writes roll back, fee and nonce stay), as a cap it went past must.
   */
  readonly onApplied?: (ctx: TxContext, applied: AppliedTransaction) => Promise<void>;
}

export type SignerAnswer = SignerGrant | ChainError | undefined;

/**
 * The one refusal every main-key-only operation gives a delegated signer (decisions.md §31: 401,
 * naming the rule), so the sentinel's trust list, holds, session grants, rotation and recovery
 * all say the same thing at admission and in the block.
 */
export function requireMainKey(signer: Signer, action: string): ChainError | undefined {
  if (signer.kind === 'main') return undefined;
  return unauthorized(`only a main key of the account may ${action}: a ${signer.kind} key may not`, 'sign with the account\'s own key');
}
