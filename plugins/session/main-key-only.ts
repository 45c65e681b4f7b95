/**
 * Operations a session key may never sign whose plugins do not declare it yet (`mainKeyOnly`),
 * with the action the refusal names: the session plugin says so before judging the grant's scope,
 * so a narrow scope does not hide the real reason. Every other operation's rule comes with the
 * request (`SignRequest.mainKeyOnly`, from its declaration); these go once the sentinel plugin
 * declares its own (issue 30 phase B).
 */
export const UNDECLARED_MAIN_KEY_ONLY: ReadonlyMap<string, string> = new Map([
  ['held_confirm', 'confirm a held transfer'],
  ['held_cancel', 'cancel a held transfer'],
  ['trust_add', 'manage the trust list'],
  ['trust_remove', 'manage the trust list'],
]);
