import { ChainError } from '../errors.js';
import type { ReadContext } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import type { StateSource } from '../state/overlay.js';
import { authorize, type Authorized } from '../auth/authorize.js';
import type { PresentedKey } from '../state/key-set.js';
import type { ParsedOperation } from '../ops/registry.js';
import type { Tx } from '../model/types.js';

/**
 * Who signed a transaction or operation, asked the same way at admission (committed state) and in
 * the block (the block's state): an operator-key operation by its configured key set (the signer
 * is then of kind `operator` and pays from the address its key derives), anything else through
 * kernel/auth's `authorize`, told what the transaction declares it debits (a plain transaction's
 * value, an operation's `debits`), what the same key's other pending transactions declare
 * (`pendingDebit`: admission's, 0 in a block) and the largest fee it can be charged (`gasLimit` × its price).
 * `ctx` is built only when a plugin must be asked.
 */
export async function authorizeTx(hooks: Hooks, scoped: <C>(ctx: C, plugin: string) => C, ctx: () => ReadContext, source: StateSource, tx: Tx, key: PresentedKey, p: ParsedOperation | undefined, gasLimit: number, pendingDebit: () => bigint = () => 0n): Promise<Authorized | ChainError> {
  const operators = p?.op.spec.signing?.operatorKeys;
  if (p && operators) {
    if (!(await operators(scoped(ctx(), p.op.plugin))).includes(key.hex)) return new ChainError(403, `${p.op.spec.name}: the signing key is not an operator key of this network`);
    return { signer: { kind: 'operator', publicKey: key.hex, account: key.derived, payer: key.derived, grantedBy: p.op.plugin }, grant: undefined };
  }
  const debit = p === undefined ? tx.value : await declaredDebit(p, () => scoped(ctx(), p.op.plugin));
  return authorize(hooks, ctx, source, { actor: tx.from, publicKey: key.hex, tx, operation: p?.op.spec.name, mainKeyOnly: p?.op.spec.mainKeyOnly, debit, pendingDebit, maxFee: BigInt(gasLimit) * tx.gasPrice }, key);
}

/** What an operation declares it takes from the signing account (`OperationSpec.debits`, else its signed value when that counts ucoin). */
export async function declaredDebit(p: ParsedOperation, ctx: () => ReadContext): Promise<bigint> {
  const debits = p.op.spec.debits;
  if (debits === undefined) return p.coinValue;
  const amount = await debits(ctx(), { body: p.body as never, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce });
  if (typeof amount !== 'bigint' || amount < 0n) throw new Error(`operation ${p.op.spec.name}: debits must return a non-negative bigint, got ${String(amount)}`);
  return amount;
}
