import type { TObject } from '@sinclair/typebox';
import type { OperationSpec } from './operation.js';

/** What the operations of a family share: one body schema, one Signs-for address, one rule of who signs. */
export type SharedOperationFields<S extends TObject> = Pick<OperationSpec<S>, 'schema' | 'signsFor' | 'gas'> & Partial<Pick<OperationSpec<S>, 'value' | 'actor' | 'mainKeyOnly' | 'signing' | 'pathFields' | 'uncoveredPathFields'>>;

/** One member: its name, routes and handlers; it may set its own gas. */
export type FamilyMember<S extends TObject> = Omit<OperationSpec<S>, keyof SharedOperationFields<S>> & Partial<Pick<OperationSpec<S>, 'gas'>>;

/**
 * Operations that are two sides of one thing (add/remove, allow/disallow, confirm/cancel) and
 * share their body, Signs-for address and signer rule: declared once, each side adding only what
 * differs (name, routes, socket method, checks, effect).
 *
 *   const trustOp = operationFamily({ schema: TrustSchema, signsFor: TRUST_TARGET, value: null, gas: 30, mainKeyOnly: 'manage the trust list' });
 *   export const trustAdd = trustOp({ name: 'trust_add', … });
 *   export const trustRemove = trustOp({ name: 'trust_remove', … });
 */
export function operationFamily<S extends TObject>(shared: SharedOperationFields<S>): (member: FamilyMember<S>) => OperationSpec<S> {
  return (member) => ({ ...shared, ...member }) as OperationSpec<S>;
}
