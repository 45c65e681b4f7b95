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

/**
 * `POST /api/v1/faucet` and the socket method `faucet`. Socket write methods carry `signature`,
 * `public_key` and `nonce` inside params (part 2, Client messages), and a client may send the
 * same over REST: `signature` and `nonce` are accepted when well typed and ignored (the faucet
 * signs nothing; the credit binds `public_key`). Any other field is refused.
 */
export const FaucetRequestSchema = Type.Object(
  {
    address: Type.String({ minLength: 1, description: 'the address to credit' }),
    public_key: Type.String({ minLength: 1, description: 'hex ML-DSA-65 public key, bound to the address when it has none' }),
    amount: Type.Optional(Type.Integer({ minimum: 1, description: 'ucoin; the node\'s default_amount when absent' })),
    signature: Type.Optional(Type.String({ description: 'accepted and ignored (socket write methods carry one)' })),
    nonce: Type.Optional(Type.Integer({ minimum: 0, description: 'accepted and ignored' })),
  },
  { additionalProperties: false },
);

export const FaucetAnswerSchema = Type.Object({
  success: Type.Literal(true),
  status: Type.Literal('pending'),
  address: Type.String(),
  amount: Type.Integer({ minimum: 1 }),
  amount_human: Type.String(),
  block: Type.Integer({ minimum: 1, description: 'the height the credit is expected in' }),
  tx_hash: Type.String(),
  note: Type.String(),
});

export const DeriveRequestSchema = Type.Object({ words: Type.String({ minLength: 1, description: 'a 24-word BIP-39 English recovery phrase' }) }, { additionalProperties: false });

export const DeriveAnswerSchema = Type.Object({ address: Type.String(), public_key: Type.String() });
