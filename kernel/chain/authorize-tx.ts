import { ChainError } from '../errors.js';
import type { Hooks, ReadContext } from '../hooks.js';
import type { StateSource } from '../state/overlay.js';
import { authorize, type Authorized } from '../auth/authorize.js';
import type { PresentedKey } from '../auth/key-set.js';
import type { ParsedOperation } from '../ops/registry.js';
import type { Tx } from './types.js';

/**
 * Who signed a transaction or operation, asked the same way at admission (committed state) and in
 * the block (the block's state): an operator-key operation by its configured key set (the signer
 * is then of kind `operator` and pays from the address its key derives), anything else through
 * kernel/auth's `authorize`. `ctx` is built only when a plugin must be asked.
 */
export async function authorizeTx(hooks: Hooks, scoped: <C>(ctx: C, plugin: string) => C, ctx: () => ReadContext, source: StateSource, tx: Tx, key: PresentedKey, p: ParsedOperation | undefined): Promise<Authorized | ChainError> {
  const operators = p?.op.spec.signing?.operatorKeys;
  if (p && operators) {
    if (!(await operators(scoped(ctx(), p.op.plugin))).includes(key.hex)) return new ChainError(403, `${p.op.spec.name}: the signing key is not an operator key of this network`);
    return { signer: { kind: 'operator', publicKey: key.hex, account: key.derived, payer: key.derived, grantedBy: p.op.plugin }, grant: undefined };
  }
  return authorize(hooks, ctx, source, { actor: tx.from, publicKey: key.hex, tx, operation: p?.op.spec.name }, key);
}
