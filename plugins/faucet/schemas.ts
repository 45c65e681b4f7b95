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
 * `POST /api/v1/faucet` and the socket method `faucet`: part 1's body. Any other field is refused,
 * but for those of FaucetIgnoredFields.
 */
export const FaucetRequestSchema = Type.Object(
  {
    address: Type.String({ minLength: 1, description: 'the address to credit' }),
    public_key: Type.String({ minLength: 1, description: 'hex ML-DSA-65 public key, bound to the address when it has none' }),
    amount: Type.Optional(Type.Integer({ minimum: 1, description: 'ucoin; the node\'s default_amount when absent' })),
  },
  { additionalProperties: false },
);

/**
 * Socket write methods carry `signature`, `public_key` and `nonce` inside params (part 2, Client
 * messages), and a REST client may send the same. The faucet is an unsigned write (decisions.md
 * §76): `signature` and `nonce` are accepted when well typed and ignored (the credit binds
 * `public_key`), and left out of its API reference, which lists a signed body's 401 and
 * `x-signs-for` (§87).
 */
export const FaucetIgnoredFields = Type.Object({
  signature: Type.Optional(Type.String()),
  nonce: Type.Optional(Type.Integer({ minimum: 0 })),
});

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
