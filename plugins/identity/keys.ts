import { deriveAddress, parseHex, type KeySet, type ReadContext, type Signer, type WriteContext } from '../../kernel/sdk.js';
import { removedKeyPath, resetPath, type RemovedKey } from './removed-keys.js';
import { derivedPath } from './store.js';

/** Whether `publicKeyHex` is the key `address` derives from (decisions.md §3). */
function derives(publicKeyHex: string, address: string): boolean {
  const bytes = parseHex(publicKeyHex);
  return bytes !== null && deriveAddress(bytes) === address;
}

/**
 * The main keys of `address` as a list: the kernel's key set, with the derived key when it is
 * known (the signer's, when it derives the address, or one recorded by an earlier operation).
 */
export async function currentKeys(ctx: Pick<ReadContext, 'accounts' | 'store'>, address: string, signer?: Pick<Signer, 'publicKey'>): Promise<KeySet> {
  const derived = signer !== undefined && derives(signer.publicKey, address) ? signer.publicKey : (await ctx.store.getRecord<{ key: string }>(derivedPath(address)))?.key;
  return ctx.accounts.mainKeys(address, derived);
}

/** Keeps the derived key of an address that signed with it, so its identity view can list it after rotation starts from it. */
export function rememberDerived(ctx: WriteContext, address: string, signer: Pick<Signer, 'publicKey' | 'kind'>): void {
  if (signer.kind === 'main' && derives(signer.publicKey, address)) ctx.store.setRecord(derivedPath(address), { key: signer.publicKey });
}

/** A key removed by rotation: what it granted ends (removed-keys.ts). */
export function recordRemoved(ctx: WriteContext, address: string, publicKeyHex: string): void {
  ctx.store.setRecord<RemovedKey>(removedKeyPath(address, publicKeyHex), { height: ctx.block.height });
}

/** Every key of the account replaced (a completed recovery): everything they granted ends. */
export function recordReset(ctx: WriteContext, address: string): void {
  ctx.store.setRecord<RemovedKey>(resetPath(address), { height: ctx.block.height });
}
