/**
 * Operations a session key may never sign (part 2 "Who may do what" and Session keys 4, issue 25),
 * with the action the refusal names. Each operation also refuses a non-main signer in its own
 * `check`; listing them here lets the session plugin say so before judging the grant's scope, so
 * a narrow scope does not hide the real reason.
 */
export const MAIN_KEY_ONLY_OPERATIONS: ReadonlyMap<string, string> = new Map([
  ['grant_session', 'grant session keys'],
  ['revoke_session', 'revoke session keys'],
  ['sponsor_allow', 'choose whom a sponsor pool pays for'],
  ['sponsor_disallow', 'choose whom a sponsor pool pays for'],
  ['rotate_key', 'rotate keys'],
  ['recovery_setup', 'change recovery'],
  ['recovery_request', 'request a recovery'],
  ['recovery_approve', 'approve a recovery'],
  ['recovery_reject', 'reject a recovery'],
  ['recovery_withdraw', 'withdraw a recovery request'],
  ['recovery_cancel', 'cancel a recovery'],
  ['held_confirm', 'confirm a held transfer'],
  ['held_cancel', 'cancel a held transfer'],
  ['trust_add', 'manage the trust list'],
  ['trust_remove', 'manage the trust list'],
]);
