import { deriveAddress, isAddress, parseHex, type KeySet, type ReadContext, type Signer, type WriteContext } from '../../kernel/sdk.js';
import { derivedKeys, keyId, removedKeys, resets } from './store.js';

/** Whether `publicKeyHex` is the key `address` derives from (decisions.md §3). */
function derives(publicKeyHex: string, address: string): boolean {
  const bytes = parseHex(publicKeyHex);
  return bytes !== null && deriveAddress(bytes) === address;
}

/**
 * The main keys of `address` as a list: the kernel's key set, with the derived key when it is
 * known (the signer's, when it derives the address, or one recorded by an earlier operation).
 * Any text may be asked (a route's path): what is no address has no record.
 */
export async function currentKeys(ctx: Pick<ReadContext, 'accounts' | 'store'>, address: string, signer?: Pick<Signer, 'publicKey'>): Promise<KeySet> {
  const derived = signer !== undefined && derives(signer.publicKey, address) ? signer.publicKey : isAddress(address) ? (await derivedKeys.get(ctx.store, address))?.key : undefined;
  return ctx.accounts.mainKeys(address, derived);
}

/** Keeps the derived key of an address that signed with it, so its identity view can list it after rotation starts from it. */
export async function rememberDerived(ctx: WriteContext, address: string, signer: Pick<Signer, 'publicKey' | 'kind'>): Promise<void> {
  if (signer.kind !== 'main' || !derives(signer.publicKey, address)) return;
  // A public key's hex is sized by the protocol, not chosen by the signer: not priced as growth (kernel/chain/state-growth.ts).
  if (!(await derivedKeys.get(ctx.store, address))) ctx.protocolSizedBytes(signer.publicKey.length);
  derivedKeys.set(ctx.store, address, { key: signer.publicKey });
}

/** A key removed by rotation: what it granted ends (`removedSince`). */
export function recordRemoved(ctx: WriteContext, address: string, publicKeyHex: string): void {
  removedKeys.set(ctx.store, address, keyId(publicKeyHex), { height: ctx.block.height });
}

/** Every key of the account replaced (a completed recovery): everything they granted ends. */
export function recordReset(ctx: WriteContext, address: string): void {
  resets.set(ctx.store, address, { height: ctx.block.height });
}

/**
 * Whether `publicKeyHex` stopped being a main key of `account` at or after `height`: a rotation
 * removed it, or a recovery replaced every key of the account. Another plugin ends for good what
 * the key granted before (the session plugin: a key added back later does not revive them).
 */
export async function removedSince(ctx: Pick<ReadContext, 'store'>, account: string, publicKeyHex: string, height: number): Promise<boolean> {
  if (!isAddress(account)) return false;
  for (const removed of [await removedKeys.get(ctx.store, account, keyId(publicKeyHex)), await resets.get(ctx.store, account)]) {
    if (removed !== undefined && removed.height >= height) return true;
  }
  return false;
}
