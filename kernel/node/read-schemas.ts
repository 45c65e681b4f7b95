import { Type } from '@sinclair/typebox';
import { withRefusal } from '../codec/schema-check.js';
import { AddressString, TxHashString } from '../tx/wire-schemas.js';
import { CAP_KEYWORD } from './request-schema.js';

/**
 * The TypeBox schemas of the kernel's read routes' parameters, exported once: the routes read their
 * requests with them (kernel/node/request-schema.ts) and clients that ask the same questions build
 * their inputs from them (the assistant tool server, clients/mcp/), so a bound is never copied.
 * The shape work's declared routes take these same constants as their `params` and `query`.
 */

/** What the `type` filter of the transaction list accepts: a type (`stake`), `transfer`, `staking`, `all`, or a system address's name. */
export const TX_TYPE_PATTERN = '^(chain:system\\.)?[a-z0-9][a-z0-9_.-]{0,63}$';

/** The paging fields of a list route (part 2 "Pagination caps", decisions.md §20): `limit` above `cap` is capped, `page` is 1-based and used when `offset` is absent. */
export function pagingFields(defaultLimit: number, cap: number) {
  return {
    limit: Type.Optional(Type.Integer({ minimum: 1, default: defaultLimit, [CAP_KEYWORD]: cap, description: `how many records: default ${defaultLimit}, at most ${cap}` })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999, description: 'how many records to skip (newest first)' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: '1-based page of `limit` records, used when offset is absent' })),
  };
}

/** GET `/api/v1/accounts/:address` (and the other `/accounts/:address/…` reads). */
export const AccountParams = Type.Object({ address: AddressString });

/** GET `/api/v1/transactions`: `address`, `hash`, `type`, `limit` (default 50, at most 200: part 2, Pagination caps), `offset`, `page`. */
export const TransactionListQuery = Type.Object({
  address: Type.Optional(AddressString),
  hash: Type.Optional(TxHashString),
  type: Type.Optional(
    withRefusal(Type.String({ pattern: TX_TYPE_PATTERN, description: 'transfer (deposits into a vault or .node and cross-shard transfers too), staking, all, an operation type (deploy, call_contract for a call) or a system address name' }), (v) => `type "${String(v).slice(0, 64)}" is not a transaction type: use transfer, staking, all, or a system address name such as faucet`),
  ),
  ...pagingFields(50, 200),
});
