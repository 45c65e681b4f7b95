import { utf8Bytes } from '../codec/utf8.js';
import { operationPayloadHash, txMessageV2, txMessageV3 } from '../crypto/signed-message.js';
import type { ParsedOperation } from './registry.js';

/** Which text an operation's signature covers: its own layout, or `ch-tx-v2` / `ch-tx-v3` (decisions.md §6–7). */
export type OperationLayout = 'own' | 'v2' | 'v3';

/**
 * The bytes an operation's signature covers under `layout`: what the node verifies
 * (signature.ts) and what a client signs (the `chain op` command), built in one place. `own` is
 * the operation's `signing.message` (identity's `ch-rotate|…`); v3 covers the body as the client
 * sent it, without signature and public key, at `gasPrice`.
 */
export function operationMessage(p: Pick<ParsedOperation, 'op' | 'body' | 'clientBody' | 'actor' | 'target' | 'value' | 'nonce'>, layout: OperationLayout, gasPrice: bigint): Uint8Array {
  if (layout === 'own') {
    const own = p.op.spec.signing?.message;
    if (!own) throw new Error(`operation ${p.op.spec.name} has no layout of its own`);
    return utf8Bytes(own({ body: p.body as never, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce }));
  }
  return layout === 'v2' ? txMessageV2(p.actor, p.target, p.value, p.nonce) : txMessageV3(p.actor, p.target, p.value, p.nonce, gasPrice, operationPayloadHash(p.clientBody));
}
