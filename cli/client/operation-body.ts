import { toHex } from '../../kernel/codec/hex.js';
import { OperationRegistry } from '../../kernel/ops/registry.js';
import { operationMessage, type OperationLayout } from '../../kernel/ops/message.js';
import type { LoadedKey } from '../../kernel/crypto/keyfile.js';
import type { SignatureProvider } from '../../kernel/crypto/provider.js';
import type { Catalogue } from '../catalogue.js';

/** Every operation of the build's plugins, as the node registers them (actor, value and target rules included). */
export function operationRegistryOf(catalogue: Catalogue): OperationRegistry {
  const registry = new OperationRegistry();
  for (const def of catalogue.values()) for (const spec of def.operations ?? []) registry.add(def.name, spec);
  return registry;
}

export interface OperationSigning {
  readonly layout: OperationLayout;
  /** The network's chain id (`GET /api/v1/status`), named by `ch-tx-v4`; empty for the older layouts. */
  readonly chainId: string;
  /** A millisecond timestamp above the actor's last accepted nonce (decisions.md §6, §8). */
  readonly nonce: number;
  /** Sent and covered by v3 and v4, so the signature does not depend on a base fee that may change. */
  readonly gasPrice?: bigint;
  readonly gasLimit?: number;
}

export interface SignedOperation {
  readonly method: string;
  /** The operation's route with its path parameters filled from the body. */
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/**
 * An operation's signed request, built as the node parses it: the body goes through the node's
 * own registry (so actor, target and value are the node's) and the signed text is the kernel's
 * (kernel/ops/message.ts, the verifier's builder). The actor field defaults to the key's address.
 * Shared by `chain op` and `chain relayer`.
 */
export function signOperationBody(registry: OperationRegistry, name: string, body: Readonly<Record<string, unknown>>, key: LoadedKey, s: OperationSigning, provider: Pick<SignatureProvider, 'sign'>): SignedOperation {
  const reg = registry.get(name);
  if (!reg) throw new Error(`unknown operation ${JSON.stringify(name)}; the build has: ${registry.list().map((o) => o.spec.name).join(', ')}`);
  if (s.layout === 'own' && !reg.spec.signing?.message) throw new Error(`${name} has no layout of its own: sign v4 (the default)`);
  const unsigned: Record<string, unknown> = {
    [reg.actorField]: key.file.address,
    ...body,
    nonce: s.nonce,
    ...(s.gasPrice !== undefined ? { gas_price: Number(s.gasPrice) } : {}),
    ...(s.gasLimit !== undefined ? { gas_limit: s.gasLimit } : {}),
  };
  // Parsed as the node parses it; the signature is filled after.
  const parsed = registry.parse(registry.envelope(name, { ...unsigned, public_key: key.file.public_key, signature: '-' }, {}));
  if (parsed.unresolved.length > 0) throw new Error(`${name}: put ${parsed.unresolved.join(', ')} in the body (the node would fill it from its state, which a signature made here cannot know)`);
  const signature = toHex(provider.sign(operationMessage(parsed, s.layout, { chainId: s.chainId, baseFee: s.gasPrice ?? 0n }), key.keys.secretKey));
  const route = reg.spec.routes[0];
  if (!route) throw new Error(`operation ${name} has no route to submit it to`);
  const path = route.path.replace(/:([a-z_]+)/g, (_m, p: string) => encodeURIComponent(String(unsigned[p] ?? '')));
  return { method: route.method, path, body: { ...unsigned, public_key: key.file.public_key, signature } };
}
