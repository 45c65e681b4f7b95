import { sha3Hex0x } from '../../kernel/sdk.js';

/** Short, fixed-length id of a session key for state keys (a key's hex is 3 904 characters). */
function keyId(publicKeyHex: string): string {
  return sha3Hex0x(publicKeyHex).slice(2, 34);
}

/** `*` or the destination addresses a session key may send to (decisions.md §34). */
export type SessionScope = '*' | readonly string[];

/** A session key grant as state keeps it, under `grant/<account>/<key id>`. */
export interface SessionGrant {
  readonly account: string;
  readonly session_pk: string;
  readonly scope: SessionScope;
  /** Total value the key may move, ucoin; fees do not count (decisions.md §37). */
  readonly cap: bigint;
  readonly spent: bigint;
  /** The grant is valid in blocks below this height. */
  readonly expiry_block: number;
  /** The main key that signed the grant: removing it (rotation, recovery) ends the grant. */
  readonly granted_by: string;
  /** Whether `granted_by` is the key the account's address derives from (it then counts as a main key without any record). */
  readonly granted_by_derived: boolean;
  readonly granted_height: number;
  /** Height of the block that revoked it; the key is refused from the next block on. */
  readonly revoked_height: number | null;
}

export function grantPath(account: string, sessionPk: string): string {
  return `grant/${account}/${keyId(sessionPk)}`;
}

export function grantsPrefix(account: string): string {
  return `grant/${account}/`;
}

/** Most grants an account may hold at once (revoked and expired ones included until replaced). */
export const MAX_GRANTS_PER_ACCOUNT = 64;
