import { Type } from '@sinclair/typebox';
import { AddressString } from '../../kernel/sdk.js';

/** A hex ML-DSA-65 public key (1 952 bytes); either case on the wire, stored lowercase. */
export const PublicKeyHex = Type.String({ pattern: '^[0-9a-fA-F]{3904}$' });

export const GrantSchema = Type.Object(
  {
    account: Type.String(),
    session_pk: PublicKeyHex,
    scope: Type.Union([Type.Literal('*'), Type.Array(Type.String(), { minItems: 1, maxItems: 64 })]),
    cap: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    expiry_block: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  },
  { additionalProperties: false },
);

export const RevokeSchema = Type.Object({ account: Type.String(), session_pk: PublicKeyHex }, { additionalProperties: false });

/** GET `/api/v1/session/list/:account`: the account whose grants are listed (the assistant tool server's `ch_get_session_grants` takes its `address` from it). */
export const SessionListParams = Type.Object({ account: AddressString });
