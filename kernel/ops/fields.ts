import type { OperationSpec } from './operation.js';

/**
 * Which body fields an operation signs as `<actor>` and `<value>`, and what it signs for
 * (decisions.md §6, part 1's Signs-for column). Pure, so the node's registry, the gateway and the
 * description clients read (`GET /api/v1/plugins`) derive them by one rule.
 */

/** decisions.md §6: the body fields that may name who acts, in order of preference. */
export const ACTOR_FIELDS = ['address', 'owner', 'from', 'proposer', 'voter', 'delegator', 'requester', 'signer', 'author', 'account', 'guardian'] as const;
/** decisions.md §6: the amount fields signed as `<value>`, in order of preference. */
export const VALUE_FIELDS = ['amount', 'value', 'initial', 'amount_in'] as const;

type FieldsOf = Pick<OperationSpec, 'actor' | 'value' | 'schema'>;

/** The body field naming who acts: the spec's `actor`, else the first of §6's list the schema has. */
export function actorFieldOf(spec: FieldsOf): string | undefined {
  const props = Object.keys(spec.schema.properties);
  return spec.actor ?? ACTOR_FIELDS.find((f) => props.includes(f));
}

/** The body field signed as `<value>`: the spec's `value`, else the first of §6's amount fields the schema has; null for none. */
export function valueFieldOf(spec: FieldsOf): string | null {
  if (spec.value === null) return null;
  const props = Object.keys(spec.schema.properties);
  return spec.value ?? VALUE_FIELDS.find((f) => props.includes(f)) ?? null;
}

/**
 * The Signs-for address of a body: the fixed address, or the body field the spec names. Not
 * checked here: a body field may hold anything until the schema and `isAddress` judged it.
 */
export function signsForOf(spec: Pick<OperationSpec, 'signsFor'>, body: Readonly<Record<string, unknown>>): unknown {
  return typeof spec.signsFor === 'string' ? spec.signsFor : body[spec.signsFor.field];
}

/** The Signs-for column as text: the address, or `{<field>}` when a body field names it (the form of OpenAPI's `x-signs-for`, decisions.md §87). */
export function signsForText(spec: Pick<OperationSpec, 'signsFor'>): string {
  return typeof spec.signsFor === 'string' ? spec.signsFor : `{${spec.signsFor.field}}`;
}
