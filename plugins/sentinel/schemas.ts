import { Type } from '@sinclair/typebox';
import { AddressString } from '../../kernel/sdk.js';

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
