import { Type } from '@sinclair/typebox';
import { ADDRESS_MAX_LENGTH, ADDRESS_PATTERN } from '../crypto/address.js';
import { withRefusal } from '../codec/schema-check.js';

/**
 * TypeBox schemas of the values every route and body shares, exported once: routes check their
 * requests with them and clients that ask the same questions build their inputs from them (the
 * assistant tool server, clients/mcp/), so a bound is never copied.
 */

/** A chain address of any kind (part 1, "Address kinds"); the pattern is `isAddress`'s own expressions. */
export const AddressString = withRefusal(
  Type.String({ pattern: ADDRESS_PATTERN, maxLength: ADDRESS_MAX_LENGTH, description: 'a chain address: chain:<15 hex>.human for an account, or chain:<name>.node, .app, .vault, .agent' }),
  (v) => `"${String(v)}" is not a chain address (chain:<15 hex>.human and the other kinds of part 1)`,
);

/** `0x` and 64 hex characters (decisions.md §2); either case is read, lowercase is stored. */
export const TxHashString = withRefusal(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'a transaction hash: 0x and 64 hex characters' }), (v) => `transaction hash must be 0x followed by 64 hex characters, got "${String(v)}"`);

/** An amount on the wire: an integer number of ucoin a JSON number carries exactly (part 1, Amounts 1 and 3). */
export const UcoinInteger = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'ucoin (1 COIN = 1 000 000 ucoin), a whole number' });

/** Bytes as hex (contract bytecode, decisions.md §47): an even number of hex digits, at least one byte, `0x` allowed. */
export const HexBytes = withRefusal(
  Type.String({ pattern: '^(0x)?([0-9a-fA-F]{2})+$', description: 'bytes as hex: an even number of hex digits, 0x allowed' }),
  (v) => (typeof v === 'string' ? `must be an even number of hex digits (0x allowed), got ${v.length} characters${/^(0x)?[0-9a-fA-F]*$/.test(v) ? '' : ' with non-hex ones'}` : 'must be a hex string'),
);
