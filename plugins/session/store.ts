import { Type, type Static } from '@sinclair/typebox';
import { defineStore, keyPart, sha3Hex0x } from '../../kernel/sdk.js';

/** `*` or the destination addresses a session key may send to (decisions.md §34). */
export const SessionScopeSchema = Type.Union([Type.Literal('*'), Type.Array(Type.String())]);
export type SessionScope = Static<typeof SessionScopeSchema>;

/** A session key grant as state keeps it. */
const SessionGrantSchema = Type.Object({
  account: Type.String(),
  session_pk: Type.String(),
  scope: SessionScopeSchema,
  /** Total the key may take from the account besides fees, ucoin (decisions.md §95). */
  cap: Type.BigInt({ minimum: 0n }),
  spent: Type.BigInt({ minimum: 0n }),
  /** The grant is valid in blocks below this height. */
  expiry_block: Type.Integer({ minimum: 1 }),
  /** The main key that signed the grant: removing it (rotation, recovery) ends the grant. */
  granted_by: Type.String(),
  /** Whether `granted_by` is the key the account's address derives from (it then counts as a main key without any record). */
  granted_by_derived: Type.Boolean(),
  granted_height: Type.Integer({ minimum: 0 }),
  /** Height of the block that revoked it; the key is refused from the next block on. */
  revoked_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});
export type SessionGrant = Static<typeof SessionGrantSchema>;

/** Short, fixed-length id of a session key for state keys (a key's hex is 3 904 characters). */
export function keyId(publicKeyHex: string): string {
  return sha3Hex0x(publicKeyHex).slice(2, 34);
}

export const grants = defineStore('session', {
  name: 'grants',
  description: 'a session key the account granted (by the key\'s id, the first 16 bytes of the SHA3-256 of its lowercase hex): scope, cap, spent, expiry, who granted it, when it was revoked',
  key: ['grant', keyPart.address('account'), keyPart.hex('key_id', { length: 32 })],
  value: SessionGrantSchema,
});

/** Most grants an account may hold at once (revoked and expired ones included until replaced). */
export const MAX_GRANTS_PER_ACCOUNT = 64;
