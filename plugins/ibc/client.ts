import { badRequest, isLightClientError, lightClient, type ChainError, type ReadonlyStore, type Store, type WriteContext } from '../../kernel/sdk.js';
import { clientHeight, clientRoots, clients } from './store.js';
import { readSettings, type ClientRecord } from './rules.js';
import { ibcClientUpdate } from './events.js';

/*
 * This chain's light clients of its counterparties (decisions.md §65). The verification itself is
 * the kernel light client's (`lightClient.verifyIbcHeader`); this file adds the client's own
 * rules (not this chain, a rising height, trusted keys) and its records: the latest header, the
 * set it trusts, §66's provable height and the last 100 verified roots.
 */

/** How many verified roots a client keeps as usable `proof_height`s. */
export const KEPT_ROOTS = 100;

/**
 * A header that may update (or create) a client, judged on `store`: the header, or the rule it
 * breaks (400). `verify: false` skips the signature and proof checks, for `execute` only: the
 * kernel ran `check` on the same state just before, in the same block.
 */
export async function judgeHeader(store: ReadonlyStore, raw: unknown, verify = true): Promise<{ header: lightClient.IbcHeader; existing: ClientRecord | undefined } | ChainError> {
  let header: lightClient.IbcHeader;
  try {
    header = lightClient.parseIbcHeader(raw);
  } catch (e) {
    if (isLightClientError(e)) return badRequest(`header: ${e.message}`);
    throw e;
  }
  const settings = await readSettings(store);
  if (header.chainId === settings.chain_id) return badRequest(`header.chain_id ${header.chainId} is this chain's own id: a client is of a counterparty`);
  const existing = await clients.get(store, header.chainId);
  if (existing !== undefined && header.height <= existing.latest_height) return badRequest(`header.height ${header.height} must be above the client's latest_height ${existing.latest_height}`);
  if (settings.trusted_keys.length > 0) {
    const stranger = header.validators.find((v) => !settings.trusted_keys.includes(v.public_key));
    if (stranger !== undefined) return badRequest(`header.validators lists key ${stranger.public_key.slice(0, 16)}… that CHAIN_IBC_TRUSTED_PUBKEYS does not list`);
  }
  if (!verify) return { header, existing };
  try {
    lightClient.verifyIbcHeader(raw, existing === undefined ? null : existing.validators);
  } catch (e) {
    if (isLightClientError(e)) return badRequest(`header: ${e.message}`);
    throw e;
  }
  return { header, existing };
}

/** Records a header `judgeHeader` accepted on this state (the block re-judged it in `check` just before). */
export async function applyHeader(ctx: WriteContext & { store: Store }, header: lightClient.IbcHeader, existing: ClientRecord | undefined, txHash: string): Promise<void> {
  const validators = header.validators.map((v) => ({ public_key: v.public_key, power: v.power }));
  const setChanged = existing !== undefined && lightClient.ibcValsetValue(existing.validators) !== lightClient.ibcValsetValue(validators);
  // The counterparty's validator keys are sized by its set, not chosen by the relayer: what they add is not priced as growth (kernel/chain/state-growth.ts).
  const keyBytes = (set: readonly { public_key: string }[]): number => set.reduce((n, v) => n + v.public_key.length, 0);
  const addedKeyBytes = keyBytes(validators) - (existing === undefined ? 0 : keyBytes(existing.validators));
  if (addedKeyBytes > 0) ctx.protocolSizedBytes(addedKeyBytes);
  clients.set(ctx.store, header.chainId, {
    chain_id: header.chainId,
    latest_height: header.height,
    block_hash: header.blockHash,
    state_root: header.stateRoot,
    validators,
    created_height: existing?.created_height ?? ctx.block.height,
    updated_height: ctx.block.height,
  });
  clientHeight.set(ctx.store, header.chainId, BigInt(header.height));
  clientRoots.set(ctx.store, header.chainId, header.height, { block_hash: header.blockHash, state_root: header.stateRoot });
  // Keep the newest KEPT_ROOTS: heights rise, so the oldest are first in key order.
  const kept = await clientRoots.scan(ctx.store, { prefix: [header.chainId], reverse: true, limit: KEPT_ROOTS + 1 });
  if (kept.length > KEPT_ROOTS) {
    const oldestKept = kept[KEPT_ROOTS - 1]!.key[1];
    for (const old of await clientRoots.scan(ctx.store, { prefix: [header.chainId], limit: 16 })) {
      if (old.key[1] >= oldestKept) break;
      clientRoots.delete(ctx.store, header.chainId, old.key[1]);
    }
  }
  ibcClientUpdate.emit(ctx, { chain_id: header.chainId, height: header.height, block_hash: header.blockHash, state_root: header.stateRoot, created: existing === undefined, set_changed: setChanged, tx_hash: txHash });
}
