import { badRequest, ChainError, isChainError, unauthorized } from '../errors.js';
import { utf8Bytes } from '../codec/utf8.js';
import { sha3Hex0x } from '../crypto/hash.js';
import type { SignatureVerifier } from '../crypto/verifier.js';
import type { NetworkEnv, ReadContext } from '../context/contexts.js';
import type { SignatureLayout } from '../model/types.js';
import { firstVerifying, layoutProblem, signatureBytes, signatureCacheId, type SignaturePolicy } from '../tx/signature.js';
import type { ParsedOperation } from './registry.js';
import { operationMessage, type OperationLayout } from './message.js';

export interface OperationSignaturePolicy extends SignaturePolicy {
  readonly env: NetworkEnv;
}

/** A signature over an own layout whose filled fields need state, asked where no state is known: checked again in the block. */
export const DEFERRED = 'deferred';

/**
 * Checks an operation's signature(s) through the one verifier (verify once per node, on the
 * pool) and returns the layout that verified. Accepted: `ch-tx-v4` always (decisions.md §94);
 * where the network takes weak signatures, the operation's own layout when it defines one, and
 * `ch-tx-v2`/`ch-tx-v3` when it defines none or also accepts them (held transfers, §89). Then a
 * second signature where the operation defines one. Which key may sign is authorization's
 * question, not this one's. Failures are 401, but a `gas_limit` under a layout that does not
 * cover it (400, §95).
 *
 * `filled`: the body with `signing.resolve`'s fields filled from the state the caller judges
 * against (admission, the block). An own-layout signature over fields the client left out can
 * only be checked with it; without it (a proposal being validated) the answer is `deferred`, and
 * the block checks it when it executes the operation.
 */
export async function verifyOperationSignatures(p: ParsedOperation, txHash: string, publicKey: Uint8Array, policy: OperationSignaturePolicy, verifier: SignatureVerifier, filled?: Readonly<Record<string, unknown>>): Promise<SignatureLayout | typeof DEFERRED> {
  const sig = signatureBytes(p.signature, 'signature');
  const signing = p.op.spec.signing;
  const name = p.op.spec.name;
  const what = `operations (${name})`;
  let layout: SignatureLayout | undefined;
  if (p.unresolved.length > 0 && signing?.message) {
    // Only the own layout covers a field the client left out (a vote's request id).
    if (filled === undefined) return DEFERRED;
    const message = operationMessage({ ...p, body: filled as Record<string, unknown> }, 'own', policy);
    if (!(await verifier.verify(`${txHash}:own:${sha3Hex0x(message)}`, sig, message, publicKey))) {
      const fields = p.unresolved.join(', ');
      throw unauthorized(`invalid signature: it does not verify over the ${name} layout for ${p.unresolved.map((f) => `${f} ${JSON.stringify(filled[f])}`).join(', ')} (ch-tx-v3 and ch-tx-v4 cover the body as sent: with them, put ${fields} in the body)`);
    }
    layout = 'own';
  } else {
    const message = (l: OperationLayout) => (): Uint8Array => operationMessage(p, l, policy);
    const candidates: Array<readonly [SignatureLayout, () => Uint8Array]> = [['v4', message('v4')]];
    const weakToo = signing?.v4Only !== true;
    if (weakToo && signing?.message) candidates.push(['own', message('own')]);
    if (weakToo && (!signing?.message || signing.acceptsTxLayouts === true)) {
      // Part 2 documents ch-tx-v2 for operations; a sender that set gas_price most likely signed v3.
      if (p.gasPrice !== undefined) candidates.push(['v3', message('v3')], ['v2', message('v2')]);
      else candidates.push(['v2', message('v2')], ['v3', message('v3')]);
    }
    layout = await firstVerifying(verifier, txHash, p.gasPrice ?? policy.baseFee, sig, publicKey, candidates);
    if (layout === undefined && p.pathUncovered.length > 0) {
      const strong: OperationLayout[] = weakToo && (!signing?.message || signing.acceptsTxLayouts === true) ? ['v4', 'v3'] : ['v4'];
      layout = await verifyingWithPathSigned(p, strong, verifier, txHash, sig, publicKey, policy);
    }
    if (layout === undefined) {
      const names = candidates.map(([l]) => (l === 'own' ? `the ${name} layout` : `ch-tx-${l}`)).join(', ');
      const only = weakToo ? '' : ` (${name} takes ch-tx-v4 only, on every network)`;
      throw unauthorized(`invalid signature: it verifies under none of ${names} for ${p.actor} → ${p.target}${only}`, `ch-tx-v4 names GET /api/v1/status chain_id and the kind "${name}"`);
    }
    // ch-tx-v3/v4 promise every field covered: a path field must be in the signed body as well.
    if ((layout === 'v3' || layout === 'v4') && p.pathOnly.length > 0) throw unauthorized(`ch-tx-${layout} does not cover the URL: put ${p.pathOnly.join(', ')} in the signed body too (equal to the path's)`);
    if ((layout === 'v3' || layout === 'v4') && p.unresolved.length > 0) throw unauthorized(`ch-tx-${layout} covers the body as sent: put ${p.unresolved.join(', ')} in the signed body`);
  }
  const problem = layoutProblem(layout, { gasLimit: p.gasLimit, requireStrong: policy.requireStrong, weakAllowed: false, what, operation: name });
  if (problem) throw problem;
  const second = signing?.secondSignature;
  if (second) {
    const fields = { body: (filled ?? p.body) as never, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce };
    if (p.secondSignature === undefined) {
      if (second.required(policy.env)) throw unauthorized(`${second.field} is required on this network: a second signature over the ${name} payload`);
    } else if (!(await verifier.verify(`${txHash}:${second.field}`, signatureBytes(p.secondSignature, second.field), utf8Bytes(second.message({ ...fields, name, sent: sentPayload(p.clientBody, second.field) })), publicKey))) {
      throw unauthorized(`invalid ${second.field}: it does not verify over the ${name} payload`);
    }
  }
  return layout;
}

/**
 * A ch-tx-v3/v4 signature over the body with the uncovered path fields in it (`ParsedOperation.
 * pathUncovered`): what a client signed that sent the field where the socket method takes it, as a
 * param, which the gateway forwards in the path only (decisions.md §45). The field's value as the
 * path has it (text), and as a JSON number when it spells one (a proposal id). Each try has a
 * cache id of its own: verify-once remembers a signature by id, not by message.
 */
async function verifyingWithPathSigned(p: ParsedOperation, layouts: readonly OperationLayout[], verifier: SignatureVerifier, txHash: string, sig: Uint8Array, publicKey: Uint8Array, policy: OperationSignaturePolicy): Promise<SignatureLayout | undefined> {
  const asText: Record<string, unknown> = { ...p.clientBody };
  const asNumber: Record<string, unknown> = { ...p.clientBody };
  let numeric = false;
  for (const f of p.pathUncovered) {
    const v = String(p.body[f]);
    asText[f] = v;
    const n = Number(v);
    asNumber[f] = /^[0-9]{1,15}$/.test(v) ? n : v;
    numeric ||= asNumber[f] !== v;
  }
  const bodies = numeric ? [asText, asNumber] : [asText];
  const price = p.gasPrice ?? policy.baseFee;
  for (const layout of layouts) {
    for (let i = 0; i < bodies.length; i++) {
      const message = operationMessage({ ...p, clientBody: bodies[i]! }, layout, policy);
      if (await verifier.verify(`${signatureCacheId(txHash, layout as SignatureLayout, price)}:path${i}`, sig, message, publicKey)) return layout as SignatureLayout;
    }
  }
  return undefined;
}

/** The body as the client sent it without `signature`, `public_key` and the second signature: what a layout over the exact payload covers. */
function sentPayload(clientBody: Readonly<Record<string, unknown>>, secondField: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(clientBody)) if (k !== 'signature' && k !== 'public_key' && k !== secondField) out[k] = v;
  return out;
}

/**
 * The body with `signing.resolve`'s fields the client left out filled from the state `ctx` reads
 * (the body itself when nothing is left out), or why they cannot be (no open request: 404).
 */
export async function filledBody(p: ParsedOperation, ctx: ReadContext): Promise<Record<string, unknown> | ChainError> {
  const resolve = p.op.spec.signing?.resolve;
  if (resolve === undefined || p.unresolved.length === 0) return p.body;
  const got = await resolve.fill(ctx, { body: p.body as never, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce });
  if (isChainError(got)) return got;
  const body = { ...p.body };
  for (const f of p.unresolved) {
    const v = (got as Record<string, unknown>)[f];
    if (v === undefined) return badRequest(`${p.op.spec.name}: ${f} is required`);
    body[f] = v;
  }
  return body;
}

/**
 * Fills an operation's left-out fields from `ctx` and checks its signature over the result
 * (admission, and the block for an own layout that needed state): the filled body, or the
 * refusal as a ChainError.
 */
export async function verifyWithState(p: ParsedOperation, txHash: string, publicKey: Uint8Array, policy: OperationSignaturePolicy, verifier: SignatureVerifier, ctx: ReadContext): Promise<{ body: Record<string, unknown>; layout: SignatureLayout } | ChainError> {
  const body = await filledBody(p, ctx);
  if (isChainError(body)) return body;
  try {
    const layout = await verifyOperationSignatures(p, txHash, publicKey, policy, verifier, body);
    if (layout === DEFERRED) throw new Error('unreachable: a filled body is never deferred');
    return { body, layout };
  } catch (e) {
    if (e instanceof ChainError) return e;
    throw e;
  }
}
