import { Type } from '@sinclair/typebox';

/** One change of owner in an NFT's `history` (decisions.md §40). */
export const HistoryEntrySchema = Type.Object({
  type: Type.Union([Type.Literal('register'), Type.Literal('transfer')]),
  height: Type.Integer(),
  tx_hash: Type.String(),
  from: Type.String({ description: '"" for register' }),
  to: Type.String(),
});

const recordFields = {
  address: Type.String(),
  kind: Type.Union([Type.Literal('human'), Type.Literal('agent')]),
  name: Type.String({ description: 'the label' }),
  owner: Type.String(),
  registrant: Type.String(),
  registered_height: Type.Integer(),
  acquired_height: Type.Integer({ description: 'when the current owner got it' }),
  price: Type.Integer({ description: 'ucoin paid (burned) at registration' }),
  price_human: Type.String(),
};

/** An NFT as `GET /api/v1/nft/owner/:address` lists it: the record without its history. */
export const NftSummarySchema = Type.Object(recordFields);
/** `GET /api/v1/nft/:address` and `GET /api/v1/agents/:address`. */
export const NftRecordSchema = Type.Object({ ...recordFields, history: Type.Array(HistoryEntrySchema) });

/** `GET /api/v1/addresses/human/price` (decisions.md §38). */
export const NamePriceSchema = Type.Object({
  name: Type.String(),
  address: Type.String(),
  length: Type.Integer(),
  price: Type.Integer(),
  price_human: Type.String(),
  available: Type.Boolean({ description: 'false when that .human is registered' }),
});

export const RegisterNameBody = Type.Object(
  { name: Type.String({ maxLength: 64, description: 'the bare label (decisions.md §32)' }), owner: Type.String({ description: 'a key-derived .human: pays price + fee, owns the name' }) },
  { additionalProperties: false },
);

export const TransferNftBody = Type.Object(
  { nft_address: Type.String({ description: 'the .human name or .agent' }), from: Type.String({ description: 'its current owner' }), to: Type.String({ description: 'a key-derived .human other than from' }) },
  { additionalProperties: false },
);
