import { Type } from '@sinclair/typebox';

export const FaucetOptionsSchema = Type.Object(
  {
    /** FAUCET_AMOUNT default: 50 COIN. */
    default_amount: Type.Integer({ minimum: 1, default: 50_000_000 }),
    /** Largest credit one request may ask for. */
    max_amount: Type.Integer({ minimum: 1, default: 1_000_000_000 }),
  },
  { additionalProperties: false },
);

export const FaucetRequestSchema = Type.Object(
  {
    address: Type.String({ minLength: 1 }),
    public_key: Type.String({ minLength: 1 }),
    amount: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const DeriveRequestSchema = Type.Object({ words: Type.String({ minLength: 1 }) }, { additionalProperties: false });
