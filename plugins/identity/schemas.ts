import { Type } from '@sinclair/typebox';

const KeyHex = Type.String({ pattern: '^[0-9a-f]{3904}$' });
/** decisions.md §35: one lowercase hex public key or the empty string. */
const KeyOrEmpty = Type.Union([KeyHex, Type.Literal('')]);

export const RotateSchema = Type.Object({ owner: Type.String(), add: KeyOrEmpty, remove: KeyOrEmpty }, { additionalProperties: false });

export const SetupSchema = Type.Object(
  {
    owner: Type.String(),
    guardians: Type.Array(Type.String(), { minItems: 1, maxItems: 10 }),
    threshold: Type.Integer({ minimum: 1, maximum: 10 }),
    timelock: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
);

/**
 * Part 1's bodies (decisions.md §90): `requester` may be left out, and is then the key-derived
 * address of the signing `public_key`, which pays the fee and keeps the nonce.
 */
export const RequestSchema = Type.Object({ requester: Type.Optional(Type.String()), target: Type.String(), new_key: KeyHex }, { additionalProperties: false });
/**
 * `request_id`: the `id` of the open request the vote is for (`GET /api/v1/identity/recovery/:addr`);
 * left out, the node takes the target's open request's and verifies the signature against it
 * (decisions.md §90). A ch-tx-v3/v4 signature covers the body only, so it needs it in the body.
 */
export const GuardianVoteSchema = Type.Object({ guardian: Type.String(), target: Type.String(), request_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })) }, { additionalProperties: false });
export const WithdrawSchema = Type.Object({ requester: Type.Optional(Type.String()), target: Type.String() }, { additionalProperties: false });
export const CancelSchema = Type.Object({ owner: Type.String() }, { additionalProperties: false });
