import type { SignedFields } from '../../kernel/sdk.js';

/**
 * The identity operations' own signed layouts (part 2, Signed message layouts): a tag, every body
 * field in a fixed order, the actor's millisecond nonce, joined by `|` (decisions.md §5). Only
 * rotation's is given by part 2; the others follow its style. Lists (guardians) are joined by `,`
 * in the order sent. Exported for the shipped clients and tests.
 */
export const identityMessages = {
  rotate: (b: { owner: string; add: string; remove: string }, nonce: bigint): string => `ch-rotate|${b.owner}|${b.add}|${b.remove}|${nonce}`,
  setup: (b: { owner: string; guardians: readonly string[]; threshold: number; timelock: number }, nonce: bigint): string =>
    `ch-recovery-setup|${b.owner}|${b.guardians.join(',')}|${b.threshold}|${b.timelock}|${nonce}`,
  request: (b: { requester?: string; target: string; new_key: string }, nonce: bigint): string => `ch-recovery-request|${b.requester}|${b.target}|${b.new_key}|${nonce}`,
  // A vote names the request it is for (its id), not just the target: it cannot be replayed against a later request.
  approve: (b: { guardian: string; target: string; request_id?: number }, nonce: bigint): string => `ch-recovery-approve|${b.guardian}|${b.target}|${b.request_id}|${nonce}`,
  reject: (b: { guardian: string; target: string; request_id?: number }, nonce: bigint): string => `ch-recovery-reject|${b.guardian}|${b.target}|${b.request_id}|${nonce}`,
  withdraw: (b: { requester?: string; target: string }, nonce: bigint): string => `ch-recovery-withdraw|${b.requester}|${b.target}|${nonce}`,
  cancel: (b: { owner: string }, nonce: bigint): string => `ch-recovery-cancel|${b.owner}|${nonce}`,
};

/**
 * The `signing.message` of an operation whose layout is `layout`. The kernel hands it the body
 * as the handlers see it: `requester` filled from the signing key and `request_id` from the open
 * request when the client left them out (decisions.md §90).
 */
export function ownLayout<B>(layout: (b: B, nonce: bigint) => string): (op: SignedFields<B>) => string {
  return (op) => layout(op.body, op.nonce);
}
