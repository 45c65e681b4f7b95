import { Type, type Static } from '@sinclair/typebox';

const Amount = Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$', description: 'integer ucoin as a decimal string' });

export const GenesisValidatorSchema = Type.Object(
  {
    address: Type.String({ pattern: '^chain:[a-z0-9][a-z0-9_-]{0,62}\\.node$' }),
    public_key: Type.String({ pattern: '^[0-9a-f]{3904}$', description: 'ML-DSA-65 consensus public key, hex' }),
    stake: Amount,
    /** Wallet that owns the node (receives unstaked coins); the node address itself otherwise. */
    owner: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const GenesisSchema = Type.Object(
  {
    chain_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' }),
    genesis_time: Type.Integer({ minimum: 0, description: 'milliseconds since epoch; the first block is later than this' }),
    validators: Type.Array(GenesisValidatorSchema, { minItems: 1 }),
    accounts: Type.Array(Type.Object({ address: Type.String(), balance: Amount }, { additionalProperties: false })),
    params: Type.Record(Type.String(), Amount),
  },
  { additionalProperties: false },
);

export type GenesisDoc = Static<typeof GenesisSchema>;
export type GenesisValidator = Static<typeof GenesisValidatorSchema>;
