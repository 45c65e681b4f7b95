import { Type } from '@sinclair/typebox';
import { AddressString, pageAnswer, pageQuery } from '../../kernel/sdk.js';

const Address = Type.String({ minLength: 1, maxLength: 128 });
const TxHash = Type.String({ pattern: '^0x[0-9a-f]{64}$' });

export const SentinelOptionsSchema = Type.Object(
  {
    /** SHA3-256 of the weights file registered at genesis as the model `sentinel`: a node whose file differs refuses to start. */
    weights_hash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    /** Another weights file than the shipped one (plugins/sentinel/model/sentinel-v1.json). */
    weights_file: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/**
 * `POST /api/v1/transactions/:hash/confirm` and `/cancel`: the owner (the held transfer's sender;
 * left out, the key-derived address of the signing key) and the path's hash (in the body too
 * for a ch-tx-v3/v4 signature, which must cover it: decisions.md §89).
 */
export const HeldActionSchema = Type.Object({ owner: Type.Optional(Address), hash: TxHash }, { additionalProperties: false });

/** `POST /api/v1/trust/add` and `/remove`. */
export const TrustSchema = Type.Object({ owner: Address, recipient: Address }, { additionalProperties: false });

/** `POST /api/v1/sentinel/score` (part 1, Sentinel score request): non-negative integers, ucoin for amounts. */
const Count = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,30}$' })]);
export const ScoreRequestSchema = Type.Object(
  {
    value: Count,
    gas_price: Count,
    nonce: Count,
    last_nonce: Count,
    balance: Count,
    tx_count_last_10: Count,
    recipient_tx_count: Count,
    is_self_transfer: Type.Boolean(),
  },
  { additionalProperties: false },
);

/** GET `/api/v1/held/:address`: the address whose holds (as sender or recipient) are listed (the assistant tool server's `ch_get_held` takes its `address` from it). */
export const HeldListParams = Type.Object({ address: AddressString });

/** GET `/api/v1/trust/:owner`: any text (an owner that is no address trusts nobody: an empty list, as before). */
export const TrustListParams = Type.Object({ owner: Type.String({ minLength: 1, maxLength: 128 }) });

/** Both lists: at most 100 a page, 100 by default. */
export const SentinelListQuery = pageQuery({ default: 100, cap: 100 });

export const ScoreAnswer = Type.Object({ score: Type.Number({ minimum: 0, maximum: 1 }), anomalous: Type.Boolean(), category: Type.String(), model: Type.String(), version: Type.String() });

const NullableHeight = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

/** A held transfer on the wire (`held` of the submission answer and the list). */
export const HeldView = Type.Object({
  tx_hash: Type.String(),
  from: Type.String(),
  to: Type.String(),
  value: Type.Integer({ minimum: 0, description: 'ucoin' }),
  value_human: Type.String(),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  category: Type.String(),
  reason: Type.Union([Type.Literal('score'), Type.Literal('stepup'), Type.Literal('agent')]),
  needs_owner: Type.Boolean(),
  releases: Type.Union([Type.Literal('owner_confirmation'), Type.Literal('automatic')]),
  held_height: Type.Integer({ minimum: 0 }),
  release_height: NullableHeight,
  expiry_height: NullableHeight,
  status: Type.Union([Type.Literal('held'), Type.Literal('released'), Type.Literal('cancelled'), Type.Literal('refunded')]),
  resolved_height: NullableHeight,
});

export const HeldListAnswer = Type.Composite([Type.Object({ address: Type.String() }), pageAnswer('held', HeldView)]);

export const TrustListAnswer = Type.Composite([
  Type.Object({ owner: Type.String() }),
  pageAnswer('trusted', Type.Object({ recipient: Type.String(), added_height: Type.Integer({ minimum: 0 }), active_from: Type.Integer({ minimum: 0 }), active: Type.Boolean({ description: 'counts for the next block' }) })),
]);
