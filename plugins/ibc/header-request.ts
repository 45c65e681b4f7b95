import type { WriteContext } from '../../kernel/sdk.js';

/**
 * decisions.md §64: a block that writes a packet commitment or receipt must get a commit header
 * at its height, so a relayer can prove the packet without waiting for the next
 * `ibc_header_interval`. The kernel's header signer owns the header (docs/architecture.md,
 * "Light-client commit headers"); this is the one place the ibc plugin asks for it. In a
 * transaction the request counts only if the transaction succeeds.
 */
export function requestHeaderAt(ctx: WriteContext): void {
  ctx.requestLightClientHeader();
}
