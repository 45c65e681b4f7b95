import { sha3_256 } from '@noble/hashes/sha3.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { utf8Bytes } from '../codec/utf8.js';
import { hexOf } from '../light-client/bytes.js';
import type * as NodeHash from './hash.js';

/*
 * hash.ts for a browser bundle: the same functions over noble instead of node:crypto. The SDK's
 * bundler (sdk/build/bundle.ts) substitutes this file for hash.ts, as a package's `browser` field
 * would, so the signing layouts, addresses and phrases the browser module builds are the kernel's
 * own code (kernel/tx/signing.ts, crypto/address.ts, crypto/mnemonic.ts); only the digest
 * underneath differs, and hash.browser.test.ts checks both give the same bytes.
 */

export type Hash32 = Uint8Array;

const bytesOf = (data: Uint8Array | string): Uint8Array => (typeof data === 'string' ? utf8Bytes(data) : data);

export function sha3(data: Uint8Array | string): Hash32 {
  return sha3_256(bytesOf(data));
}

export function sha256(data: Uint8Array | string): Hash32 {
  return nobleSha256(bytesOf(data));
}

export function sha3Hex0x(data: Uint8Array | string): string {
  return '0x' + hexOf(sha3(data));
}

export function sha3Concat(...parts: Uint8Array[]): Hash32 {
  const h = sha3_256.create();
  for (const p of parts) h.update(p);
  return h.digest();
}

/** The substitution must offer everything hash.ts does, with the same types. */
export const sameSurface: Record<keyof typeof NodeHash, true> = { sha3: true, sha256: true, sha3Hex0x: true, sha3Concat: true };
