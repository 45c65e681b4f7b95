import { utf8Bytes } from '../codec/utf8.js';
import { operationPayloadHash } from '../crypto/signed-message.js';
import { txSigningMessage, type SigningFields, type SigningNetwork, type TxLayout } from '../tx/signing.js';
import type { ParsedOperation } from './registry.js';

/** Which text an operation's signature covers: its own layout, or `ch-tx-v2` / `v3` / `v4` (decisions.md §6–7, §94). */
export type OperationLayout = 'own' | TxLayout;

/** What `ch-tx` layouts cover of an operation: its type as the kind, actor, Signs-for, value, nonce, price, limit and the body as sent. */
export function operationSigningFields(p: Pick<ParsedOperation, 'op' | 'clientBody' | 'actor' | 'target' | 'value' | 'nonce' | 'gasPrice' | 'gasLimit'>): SigningFields {
  return { kind: p.op.spec.name, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce, gasPrice: p.gasPrice, gasLimit: p.gasLimit, payloadHash: operationPayloadHash(p.clientBody) };
}

/**
 * The bytes an operation's signature covers under `layout`: what the node verifies
 * (signature.ts) and what a client signs (the `chain op` command), built in one place. `own` is
 * the operation's `signing.message` over `body` (identity's `ch-rotate|…`; pass the body with
 * the fields `signing.resolve` filled); the `ch-tx` layouts cover the body as the client sent it.
 */
export function operationMessage(p: Pick<ParsedOperation, 'op' | 'body' | 'clientBody' | 'actor' | 'target' | 'value' | 'nonce' | 'gasPrice' | 'gasLimit'>, layout: OperationLayout, net: SigningNetwork): Uint8Array {
  if (layout === 'own') {
    const own = p.op.spec.signing?.message;
    if (!own) throw new Error(`operation ${p.op.spec.name} has no layout of its own`);
    return utf8Bytes(own({ body: p.body as never, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce }));
  }
  return txSigningMessage(layout, operationSigningFields(p), net);
}
