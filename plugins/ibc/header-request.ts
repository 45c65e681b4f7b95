import type { WriteContext } from '../../kernel/sdk.js';

/**
 * decisions.md §64: a block that writes a packet commitment or receipt must get a commit header
 * at its height, so a relayer can prove the packet without waiting for the next
 * `ibc_header_interval`. The signing side (the kernel's header signer, branch h37-headers) owns
 * that decision; this is the one place the ibc plugin asks for it. Until the SDK offers the hook,
 * the request is carried by the block's own `ibc_send` / `ibc_recv` events, which the signer can
 * read from the block (every commitment and receipt write emits one of them).
 */
export function requestHeaderAt(_ctx: WriteContext): void {
  // INTEGRATION POINT (h37-headers): call the SDK's header-request hook here once it exists.
}
