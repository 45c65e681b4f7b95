import { notFound } from '../errors.js';
import type { RouteTable } from '../host/route-table.js';
import { ibcHeaderMessage } from '../light-client/ibc-header.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { utf8Bytes } from '../codec/utf8.js';
import { toHex } from '../codec/hex.js';
import type { LightClientHeaders } from '../replica/light-client-headers.js';
import { KERNEL_ROUTES } from './kernel-declarations.js';

/** The fixed inputs of decisions.md §70's test vector. */
export const IBC_TEST_VECTOR_INPUT = {
  chain_id: 'test-vector',
  height: 1000,
  block_hash: `0x${'ab'.repeat(32)}`,
  state_root: `0x${'cd'.repeat(32)}`,
  seed_hex: '01'.repeat(32),
} as const;

/**
 * decisions.md §70's vector: the `ch-pq-lc-v1` text of the fixed header, §4's vector key (seed of
 * 32 bytes 0x01) and its FIPS 204 deterministic ML-DSA-65 signature (empty context). Signed with
 * noble, whose signatures are deterministic, whatever provider the node runs, so every node
 * answers the same bytes; computed once.
 */
export function ibcTestVector(): Record<string, string | number> {
  const v = IBC_TEST_VECTOR_INPUT;
  const message = ibcHeaderMessage(v.chain_id, v.height, v.block_hash, v.state_root);
  const keys = nobleProvider.keygen(Uint8Array.from(Buffer.from(v.seed_hex, 'hex')));
  return { ...v, message, public_key: toHex(keys.publicKey), signature: toHex(nobleProvider.sign(utf8Bytes(message), keys.secretKey)) };
}

/** `GET /api/v1/ibc/header/latest`, `/ibc/header/:height` (decisions.md §64) and `/ibc/pq/test-vector` (§70). */
export function registerIbcHeaderRoutes(routes: RouteTable, headers: LightClientHeaders): void {
  routes.serve(KERNEL_ROUTES.ibcHeaderLatest, async () => {
    const header = await headers.latest();
    if (header === undefined) throw notFound('no light-client header yet', 'the first is signed at the first multiple of ibc_header_interval (GET /api/v1/governance/params) or at a block that writes an IBC packet');
    return header;
  });
  routes.serve(KERNEL_ROUTES.ibcHeader, async (req) => {
    const height = Number(req.params.height);
    const header = height >= 1 ? await headers.header(height) : undefined;
    if (header === undefined) throw notFound(`no light-client header at height ${req.params.height}`, 'headers exist at multiples of ibc_header_interval, at blocks that change the validator set or write an IBC packet, once more than 2/3 of the power signed; GET /api/v1/ibc/header/latest names the newest');
    return header;
  });
  let vector: Record<string, string | number> | undefined;
  routes.serve(KERNEL_ROUTES.ibcTestVector, () => (vector ??= ibcTestVector()));
}
