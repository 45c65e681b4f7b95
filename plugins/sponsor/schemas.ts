import { Type } from '@sinclair/typebox';

const Amount = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const PoolMoveSchema = Type.Object({ address: Type.String(), amount: Amount }, { additionalProperties: false });

export const AllowSchema = Type.Object(
  { address: Type.String(), beneficiary: Type.String(), session_pk: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{3904}$' })) },
  { additionalProperties: false },
);

export const DisallowSchema = Type.Object({ address: Type.String(), beneficiary: Type.String() }, { additionalProperties: false });
