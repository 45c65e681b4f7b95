import type { TObject } from '@sinclair/typebox';
import { requireMainKey } from '../context/signer.js';
import type { OperationSpec } from './operation.js';

/**
 * The operation as the kernel runs it: a declared `mainKeyOnly` refuses every signer but a main
 * key first, then the plugin's own `check` runs. Both admission and the block call the one
 * `check`, so the refusal holds in a block whose proposer skipped admission.
 */
export function withMainKeyOnly(spec: OperationSpec<TObject>): OperationSpec<TObject> {
  const action = spec.mainKeyOnly;
  if (action === undefined) return spec;
  if (typeof action !== 'string' || action.trim() === '') throw new Error(`operation "${spec.name}": mainKeyOnly names the action refused to other keys ("manage the trust list")`);
  const own = spec.check;
  return {
    ...spec,
    async check(ctx, op) {
      return requireMainKey(op.signer, action) ?? (own ? own.call(spec, ctx, op) : undefined);
    },
  };
}
