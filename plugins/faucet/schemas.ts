import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../../kernel/sdk.js';

export const FaucetOptionsSchema = Type.Object(
  {
    /** FAUCET_AMOUNT default: 50 COIN. */
    default_amount: Type.Integer({ minimum: 1, default: 50_000_000 }),
    /** Largest credit one request may ask for. */
    max_amount: Type.Integer({ minimum: 1, default: 1_000_000_000 }),
  },
  { additionalProperties: false },
);

/**
 * `POST /api/v1/faucet` and the socket method `faucet`. Socket write methods carry `signature`,
 * `public_key` and `nonce` inside params (part 2, Client messages), and a client may send the
 * same over REST: `signature` and `nonce` are accepted when well typed and ignored (the faucet
 * signs nothing; the credit binds `public_key`). Any other field is still refused.
 */
export const FaucetRequestSchema = Type.Object(
  {
    address: Type.String({ minLength: 1 }),
    public_key: Type.String({ minLength: 1 }),
    amount: Type.Optional(Type.Integer({ minimum: 1 })),
    signature: Type.Optional(Type.String()),
    nonce: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export type FaucetRequest = Static<typeof FaucetRequestSchema>;

/** The request's fields, or a 400 naming the first field that is missing, unknown or of the wrong type. */
export function parseFaucetRequest(body: unknown): FaucetRequest {
  if (Value.Check(FaucetRequestSchema, body)) return body;
  const first = Value.Errors(FaucetRequestSchema, body).First();
  throw badRequest(`faucet request: ${first ? `${first.path.replace(/^\//, '') || 'body'} ${first.message}` : 'invalid body'}`, 'send {"address", "public_key", "amount"?}');
}

export const DeriveRequestSchema = Type.Object({ words: Type.String({ minLength: 1 }) }, { additionalProperties: false });
