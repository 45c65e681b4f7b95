import { Type, type Static } from '@sinclair/typebox';

/**
 * The genesis document of decisions.md §82: every validator is a join statement signed on its
 * own host (proof of possession of the consensus key, and of the owner's key when another key
 * owns the node), gathered by `chain genesis collect`. Its hash (genesis-hash.ts) is block 1's
 * `parent_hash`, and nodes of one network pin it.
 */
const Amount = Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$', description: 'integer ucoin as a decimal string' });
const PublicKeyHex = Type.String({ pattern: '^[0-9a-f]{3904}$', description: 'ML-DSA-65 public key, lowercase hex' });
const SignatureHex = Type.String({ pattern: '^[0-9a-f]{6618}$', description: 'ML-DSA-65 signature, lowercase hex' });
const ChainId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' });

/** The fields a join statement signs, in the order of its text (genesis-join.ts). */
const JoinFields = {
  // decisions.md §82: the label of `chain init --moniker`, under §32's rules (1–32 of a-z, 0-9 and -, no - at either end).
  address: Type.String({ pattern: '^chain:[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?\\.node$', description: 'the validator\'s .node: chain:<label>.node, the label 1–32 characters of a-z, 0-9 and -, not starting or ending with - (decisions.md §32)' }),
  public_key: PublicKeyHex,
  owner: Type.String({ pattern: '^chain:[0-9a-f]{15}\\.human$', description: 'key-derived .human that owns the node (decisions.md §19)' }),
  stake: Amount,
  p2p_endpoint: Type.String({ minLength: 1, maxLength: 300, description: '<node_id>@<host>:<port>' }),
  signature: SignatureHex,
  owner_public_key: Type.Optional(PublicKeyHex),
  owner_signature: Type.Optional(SignatureHex),
};

/**
 * A validator as the genesis lists it: its join statement, and in a sharded network (decisions.md
 * §71) the shard it validates, the one that owns its `.node` and its owner. Not signed: the shard
 * follows from the address, and `checkGenesis` refuses any other.
 */
export const GenesisValidatorSchema = Type.Object({ ...JoinFields, shard: Type.Optional(Type.Integer({ minimum: 0, description: 'the shard that owns the .node (decisions.md §71); sharded networks only' })) }, { additionalProperties: false });

/** `<home>/config/join.json`: one validator's signed statement, for one chain. */
export const JoinStatementSchema = Type.Object({ chain_id: ChainId, ...JoinFields }, { additionalProperties: false });

/**
 * Accounts funded by rule rather than listed: `count` accounts, the i-th (0-based) at the address
 * `genesisRangeAddress(seed, i)` (kernel/chain/genesis-accounts.ts), each holding `balance`. A
 * million funded accounts cost the document a line, and the node a streamed write at its first
 * start, not a 60 MB array parsed at every start. Nobody holds a key for these addresses: they
 * receive; the accounts that sign are listed in `accounts`.
 */
export const GenesisAccountRangeSchema = Type.Object(
  {
    seed: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$', description: 'names the range: its addresses derive from it' }),
    count: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'accounts in the range' }),
    balance: Amount,
  },
  { additionalProperties: false },
);

export const GenesisSchema = Type.Object(
  {
    chain_id: ChainId,
    /** decisions.md §71: the shard count of a sharded network; absent on a one-shard network (§13), whose document is unchanged. */
    n_shards: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024, description: 'shard count (decisions.md §71); absent = 1' })),
    genesis_time: Type.Integer({ minimum: 0, description: 'milliseconds since epoch; the first block is later than this' }),
    validators: Type.Array(GenesisValidatorSchema, { minItems: 1 }),
    accounts: Type.Array(Type.Object({ address: Type.String({ minLength: 1, maxLength: 128 }), balance: Amount }, { additionalProperties: false })),
    params: Type.Record(Type.String(), Amount),
    account_ranges: Type.Optional(Type.Array(GenesisAccountRangeSchema, { description: 'accounts funded by rule (kernel/chain/genesis-accounts.ts); absent = none' })),
  },
  { additionalProperties: false },
);

export type GenesisDoc = Static<typeof GenesisSchema>;
export type GenesisAccountRange = Static<typeof GenesisAccountRangeSchema>;
export type GenesisValidator = Static<typeof GenesisValidatorSchema>;
export type JoinStatement = Static<typeof JoinStatementSchema>;
