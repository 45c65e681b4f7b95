import { unauthorized } from '../errors.js';
import { parseHex } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { ML_DSA65_SIGNATURE_BYTES } from '../crypto/provider.js';
import type { SignatureVerifier } from '../crypto/verifier.js';
import type { NetworkEnv } from '../hooks.js';
import { signatureCacheId } from '../tx/signature.js';
import type { ParsedOperation } from './registry.js';
import { operationMessage } from './message.js';

export interface OperationSignaturePolicy {
  readonly env: NetworkEnv;
  /** CHAIN_REQUIRE_TX_V3: refuse `ch-tx-v2`, which covers none of an operation's other fields. */
  readonly requireV3: boolean;
  readonly baseFee: bigint;
}

function signatureBytes(hex: string, field: string): Uint8Array {
  const sig = parseHex(hex, ML_DSA65_SIGNATURE_BYTES);
  if (!sig) throw unauthorized(`${field} must be ${ML_DSA65_SIGNATURE_BYTES * 2} hex characters (ML-DSA-65)`);
  return sig;
}

/**
 * Checks an operation's signature(s) through the one verifier (verify once per node, on the
 * pool): the operation's own layout when it defines one, else `ch-tx-v2|<actor>|<target>|<value>|<nonce>`
 * or `ch-tx-v3|…|<gas_price>|<payload hash>` (decisions.md §6–7); then a second signature where the
 * operation defines one. Which key may sign is authorization's question, not this one's. Every
 * failure is 401. Returns the layout that verified.
 */
export async function verifyOperationSignatures(p: ParsedOperation, txHash: string, publicKey: Uint8Array, policy: OperationSignaturePolicy, verifier: SignatureVerifier): Promise<'v2' | 'v3' | 'own'> {
  const sig = signatureBytes(p.signature, 'signature');
  const signing = p.op.spec.signing;
  const fields = { body: p.body as never, actor: p.actor, target: p.target, value: p.value, nonce: p.nonce };
  let version: 'v2' | 'v3' | 'own' | undefined;
  if (signing?.message) {
    if (await verifier.verify(signatureCacheId(txHash, 'own', 0n), sig, operationMessage(p, 'own', 0n), publicKey)) version = 'own';
    else throw unauthorized(`invalid signature: it does not verify over the ${p.op.spec.name} layout`);
  } else {
    const price = p.gasPrice ?? policy.baseFee;
    const v2 = (): Uint8Array => operationMessage(p, 'v2', price);
    const v3 = (): Uint8Array => operationMessage(p, 'v3', price);
    // Part 2 documents ch-tx-v2 for operations; a sender that set gas_price most likely signed v3.
    const order: Array<['v2' | 'v3', () => Uint8Array]> = p.gasPrice !== undefined ? [['v3', v3], ['v2', v2]] : [['v2', v2], ['v3', v3]];
    for (const [layout, message] of order) {
      if (await verifier.verify(signatureCacheId(txHash, layout, price), sig, message(), publicKey)) {
        if (layout === 'v2' && policy.requireV3) throw unauthorized('this network requires ch-tx-v3 signatures for operations', 'sign ch-tx-v3|actor|target|value|nonce|gas_price|0x<sha3 of the body without signature and public_key>');
        version = layout;
        break;
      }
    }
    if (version === undefined) throw unauthorized(`invalid signature: it verifies under neither ch-tx-v2 nor ch-tx-v3 for ${p.actor} → ${p.target}`);
    // ch-tx-v3 promises every field covered: a path field must be in the signed body as well.
    if (version === 'v3' && p.pathOnly.length > 0) throw unauthorized(`ch-tx-v3 does not cover the URL: put ${p.pathOnly.join(', ')} in the signed body too (equal to the path's)`);
  }
  const second = signing?.secondSignature;
  if (second) {
    if (p.secondSignature === undefined) {
      if (second.required(policy.env)) throw unauthorized(`${second.field} is required on this network: a second signature over the ${p.op.spec.name} payload`);
    } else if (!(await verifier.verify(`${txHash}:${second.field}`, signatureBytes(p.secondSignature, second.field), utf8Bytes(second.message(fields)), publicKey))) {
      throw unauthorized(`invalid ${second.field}: it does not verify over the ${p.op.spec.name} payload`);
    }
  }
  return version;
}
