import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The wire shapes of the kernel's own answers (part 1 "Resources and their fields", decisions.md
 * §17, §20, §34, §83–84), as the JSON a client parses: amounts are integers with their `*_human`
 * string beside them. The kernel's routes declare them (kernel-declarations.ts), the gateway's
 * forwarded routes reuse them, and the API reference shows them. Objects allow more properties:
 * a field added later is not a breaking change for a client.
 */

const Int = (description?: string) => Type.Integer(description ? { description } : {});
const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
const Ucoin = (description: string) => Type.Integer({ minimum: 0, description: `${description} (ucoin)` });
const Human = (of: string) => Type.String({ description: `${of} in COIN, as text` });
const Hash = (description: string) => Type.String({ description });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** The §20 paging fields of every list answer. */
export const PagingFields = {
  total: Count('records in the whole list'),
  limit: Type.Integer({ minimum: 1 }),
  offset: Count(),
  has_more: Type.Boolean(),
};

export const EvidenceSummary = Type.Object({ hash: Type.String(), kind: Type.String(), validator: Type.String(), height: Int(), round: Int() });

/** A block header, every field as hashed (decisions.md §84: a block's hash is SHA3-256 of its canonical JSON). */
export const BlockHeader = Type.Object({
  chain_id: Type.String(),
  height: Type.Integer({ minimum: 1 }),
  round: Count(),
  parent_hash: Hash('the previous block\'s hash; block 1\'s is the genesis hash'),
  proposer: Type.String(),
  timestamp: Int('milliseconds since 1970'),
  tx_root: Hash('Merkle root of the block\'s transaction hashes'),
  tx_count: Count(),
  prev_state_root: Hash('state root after the parent block'),
  base_fee: Ucoin('the base fee per gas'),
  shard: Count(),
  evidence_hash: Hash('SHA3-256 of the canonical JSON list of evidence ids'),
  validators_hash: Hash('SHA3-256 of ch-valset-v1|… of the set that decides this block (decisions.md §84)'),
  next_validators_hash: Hash('the same hash of the set that decides the next height'),
});

/** Part 1, Block. */
export const BlockView = Type.Object({
  height: Type.Integer({ minimum: 1 }),
  hash: Hash('0x SHA3-256 of the canonical JSON of the header'),
  parent_hash: Type.String(),
  proposer: Type.String(),
  tx_root: Type.String(),
  state_root: Hash('state root after this block'),
  prev_state_root: Type.String(),
  tx_count: Count(),
  gas_used: Count(),
  base_fee: Ucoin('the base fee per gas'),
  fees_burned: Ucoin('fees burned by the block'),
  fees_burned_human: Human('fees_burned'),
  shard: Count(),
  round: Count(),
  timestamp: Int('milliseconds since 1970'),
  chain_id: Type.String(),
  validators_hash: Type.String(),
  next_validators_hash: Type.String(),
  evidence_count: Count(),
  evidence: Type.Array(EvidenceSummary),
});

/** An event of a committed block (part 1, Events). */
export const EventView = Type.Object({
  height: Type.Integer({ minimum: 1 }),
  index: Count(),
  tx_hash: Nullable(Type.String({ description: 'the transaction that emitted it; null for a begin- or end-block event' })),
  phase: Type.String(),
  type: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
});

/** Part 1, Transaction; decisions.md §17's `type` and `status`. */
export const TxView = Type.Object({
  hash: Type.String(),
  type: Type.String({ description: 'transfer, an operation type (decisions.md §17) or a system address' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('confirmed'), Type.Literal('failed')]),
  from: Type.String(),
  to: Type.String(),
  value: Ucoin('amount moved'),
  value_human: Human('value'),
  nonce: Count(),
  gas: Count(),
  gas_price: Ucoin('price per gas'),
  fee: Ucoin('gas × gas_price'),
  fee_human: Human('fee'),
  unused_gas_fee: Type.Optional(Ucoin('burned for a declared gas limit left unused')),
  unused_gas_fee_human: Type.Optional(Human('unused_gas_fee')),
  shard: Count(),
  timestamp: Int('the block\'s timestamp, or when the node received it while pending (ms)'),
  block: Nullable(Type.Integer({ minimum: 1 })),
  index: Nullable(Count()),
  error: Type.Optional(Nullable(Type.String({ description: 'why it failed' }))),
  data: Type.Optional(Type.String()),
  signature_version: Type.Optional(Type.String()),
});

/** `GET /api/v1/transactions/:hash`: the transaction, its events and a contract's `return_data` (decisions.md §36). */
export const TxDetail = Type.Composite([
  TxView,
  Type.Object({
    return_data: Type.Optional(Type.String()),
    // An operation's `viewFields` (kernel/ops/operation.ts), those the spec names so far.
    proposal_id: Type.Optional(Type.Integer({ minimum: 1, description: 'the vault proposal a create_vault_proposal, add_vault_member, remove_vault_member or set_vault_threshold created (decisions.md §44)' })),
    template_fee: Type.Optional(Type.Integer({ minimum: 0, description: "ucoin a deploy naming a template paid its author's owner (decisions.md §51)" })),
    template_fee_human: Type.Optional(Type.String()),
    cross_shard: Type.Optional(
      Type.Object(
        { id: Type.String(), dest_shard: Count(), status: Type.String({ description: 'locked, committed or refunded' }), deadline_height: Count(), commit_height: Nullable(Count()), refund_height: Nullable(Count()) },
        { description: 'a transfer to another shard: its lock as it now stands (decisions.md §74)' },
      ),
    ),
    events: Type.Array(EventView),
  }),
]);

/** A Merkle proof of one state key under the state tree rules (decisions.md §84). */
export const StateKeyProof = Type.Object({
  leaf: Nullable(Type.Object({ keyHash: Type.String(), valueHash: Type.String() })),
  siblings: Type.Array(Type.String(), { description: 'root side first; the last one never empty' }),
});

export const ProvenEntry = Type.Object({
  key: Type.String(),
  exists: Type.Boolean(),
  value_hex: Nullable(Type.String({ description: 'the stored bytes as lowercase hex' })),
  proof: StateKeyProof,
});

export const Precommit = Type.Object({ type: Type.String(), height: Type.Integer(), round: Count(), block_hash: Type.String(), validator: Type.String(), signature: Type.String() });
export const CommitCertificate = Type.Object({ height: Type.Integer({ minimum: 1 }), round: Count(), block_hash: Type.String(), precommits: Type.Array(Precommit) });
export const SetMember = Type.Object({ address: Type.String(), public_key: Type.String(), power: Type.Integer({ minimum: 0, description: 'self-stake (ucoin)' }) });

/** `GET /api/v1/blocks/:height/commit` (decisions.md §84). */
export const CommitView = Type.Object({
  height: Type.Integer({ minimum: 1 }),
  header: BlockHeader,
  certificate: CommitCertificate,
  validators: Type.Array(SetMember, { description: 'the set that decides the block, ascending by address' }),
});

/** `proof` of a `?prove=true` read (decisions.md §84), checked by a client as §85 says. */
export const ReadProof = Type.Object({
  height: Count('h: the state height the answer was read at'),
  state_root: Type.String(),
  entries: Type.Array(ProvenEntry),
  header: BlockHeader,
  certificate: CommitCertificate,
  validators: Type.Array(SetMember),
});

/** Part 1, Account; `proof` with `?prove=true`. */
export const AccountView = Type.Object({
  address: Type.String(),
  type: Type.String({ description: 'human, node, app, vault, agent, or unknown' }),
  balance: Ucoin('spendable balance'),
  balance_human: Human('balance'),
  nonce: Count(),
  next_nonce: Count('the nonce the next transfer takes, counting pending ones'),
  tx_count: Count(),
  shard: Count(),
  is_contract: Type.Boolean(),
  verified: Type.Boolean({ description: 'a key is proven for the address' }),
  custom_address: Type.String(),
  proof: Type.Optional(ReadProof),
});

export const TotalsView = Type.Object({
  address: Type.String(),
  sent: Ucoin('sent in total'),
  sent_human: Human('sent'),
  received: Ucoin('received in total'),
  received_human: Human('received'),
  fees_paid: Ucoin('fees paid in total'),
  fees_paid_human: Human('fees_paid'),
  sent_count: Count(),
  received_count: Count(),
});

export const TxList = Type.Object({ transactions: Type.Array(TxView), total_exact: Type.Optional(Type.Boolean({ description: 'false: a filtered walk hit its bound, total is a lower bound' })), ...PagingFields });
export const AccountTxList = Type.Object({ address: Type.String(), transactions: Type.Array(TxView), ...PagingFields });
export const BlockList = Type.Object({ blocks: Type.Array(BlockView), ...PagingFields });
export const BlockTxList = Type.Object({ height: Type.Integer({ minimum: 1 }), transactions: Type.Array(TxView), count: Count('transactions in the block'), ...PagingFields });
export const BlockEventList = Type.Object({ height: Type.Integer({ minimum: 1 }), events: Type.Array(EventView), total: Count() });

/** Part 1, Validator. */
export const ValidatorView = Type.Object({
  address: Type.String(),
  public_key: Type.String(),
  power: Type.Integer({ minimum: 0 }),
  stake: Ucoin('self-stake, its voting power'),
  stake_human: Human('stake'),
  trust_score: Type.Number({ minimum: 0, maximum: 1, description: 'share of the last trust_window_blocks certificates carrying its precommit' }),
  blocks_proposed: Count(),
  votes_cast: Count(),
  last_active: Count('height of its last proposal or precommit; 0 if none'),
});

/** decisions.md §34: the validator list with the §20 paging fields. */
export const ValidatorList = Type.Object({
  validators: Type.Array(ValidatorView),
  count: Count('validators in the active set'),
  total_staked: Ucoin('stake of the whole set'),
  total_staked_human: Human('total_staked'),
  height: Count(),
  trust_window_blocks: Count(),
  counted_from: Count('the height this node\'s activity counts start from'),
  ...PagingFields,
});

/** Part 1, Node health. */
export const HealthView = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('syncing')]),
  network: Type.String(),
  chain_id: Type.String(),
  height: Count(),
  round: Count(),
  mempool: Count(),
  peers: Count(),
  tps: Count('transactions per second over the last blocks'),
  total_txs: Count(),
  validator_count: Count(),
  bft_quorum: Count(),
  bft_ready: Type.Boolean(),
  finality_ms: Count('mean block interval over the last blocks'),
  behind: Count('blocks this node knows it is behind'),
  shard: Count('the shard this node serves (decisions.md §77)'),
  n_shards: Type.Integer({ minimum: 1, description: 'shards of the network (1 unsharded)' }),
});

/** `GET /status`, `/api/v1/status` (part 1, decisions.md §83). */
export const StatusView = Type.Object({
  network: Type.String(),
  chain_id: Type.String(),
  genesis_hash: Type.String(),
  node_id: Type.String({ description: 'first 20 bytes of SHA3-256 of the consensus key, 40 hex' }),
  node_address: Nullable(Type.String({ description: 'null for a node outside the set' })),
  moniker: Nullable(Type.String()),
  p2p_endpoint: Type.String(),
  env: Type.String(),
  height: Count(),
  block_hash: Type.String(),
  state_root: Type.String(),
  validators: Type.Array(Type.Object({ address: Type.String(), power: Type.Integer({ minimum: 0 }) })),
  validator_count: Count(),
  shards: Type.Integer({ minimum: 1 }),
  shard_id: Count(),
  total_txs: Count(),
});

/** The genesis document as loaded (decisions.md §82–83). */
export const GenesisView = Type.Object({
  chain_id: Type.String(),
  genesis_time: Int('milliseconds since 1970'),
  validators: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  accounts: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});

export const PeersView = Type.Object({
  peers: Type.Array(Type.Object({ id: Type.String(), address: Type.String(), direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]), connected_since: Int() })),
  count: Count(),
});

/** Part 1, Gas estimate; decisions.md §18's `operations`. */
export const GasEstimateView = Type.Object({
  base_fee: Ucoin('base fee per gas'),
  gas_base_transfer: Count(),
  gas_contract_call: Count(),
  estimated_transfer: Ucoin('fee of a transfer at base_fee'),
  estimated_transfer_human: Human('estimated_transfer'),
  estimated_contract: Ucoin('fee of a contract call at base_fee'),
  estimated_contract_human: Human('estimated_contract'),
  nft_transfer_fee: Ucoin('fee of an NFT transfer'),
  nft_transfer_fee_human: Human('nft_transfer_fee'),
  total_burned: Ucoin('fees burned since genesis'),
  total_burned_human: Human('total_burned'),
  operations: Type.Record(Type.String(), Count(), { description: 'each operation\'s gas, by name (decisions.md §18)' }),
});

/**
 * decisions.md §77: arrays by shard of each head's state root and height; a node fills its own
 * entry and leaves the others null, the gateway fills every shard's from its nodes.
 */
export const StateRootView = Type.Object({
  n_shards: Type.Integer({ minimum: 1 }),
  shard_roots: Type.Array(Nullable(Type.String()), { description: 'by shard: the state root after its head block (null: not known here)' }),
  shard_heights: Type.Array(Nullable(Count()), { description: 'by shard: its head height (null: not known here)' }),
  height: Nullable(Count('the lowest of the known shard_heights')),
  root_height: Nullable(Count('= height')),
  global_root: Nullable(Type.String({ description: 'shard_roots[0] with one shard, else 0x SHA3-256 of ch-global-root-v1|<n>|<h_0>|<root_0>|… in shard order; null while an entry is null' })),
});

const CrossShardTotals = Type.Object({
  locked: Ucoin('value of its locks now locked'),
  locked_human: Type.String(),
  sent: Ucoin('value of its locks now committed'),
  sent_human: Type.String(),
  refunded: Ucoin('value of its locks now refunded'),
  refunded_human: Type.String(),
  received: Ucoin('value of its committed receipts'),
  received_human: Type.String(),
});

export const ShardsView = Type.Object({
  n_shards: Type.Integer({ minimum: 1 }),
  shard_id: Count(),
  shards: Type.Array(
    Type.Object({
      shard: Count(),
      height: Count(),
      block_hash: Type.String(),
      state_root: Type.String({ description: 'the root after block height' }),
      validators: Type.Array(Type.Object({ address: Type.String(), public_key: Type.String(), power: Type.Integer({ minimum: 1 }) }), { description: "the active set in decisions.md §84's form" }),
      validators_hash: Type.String(),
      cross_shard: CrossShardTotals,
    }),
  ),
});

/** `GET /api/v1/state/proof?key=&height=`: one key's proof against block height's state root (decisions.md §66). */
export const StateProofView = Type.Object({ key: Type.String(), height: Count(), state_root: Type.String(), exists: Type.Boolean(), value_hex: Nullable(Type.String()), proof: StateKeyProof });

/** A light-client commit header (decisions.md §64). Powers are self-stake in ucoin, JSON integers. */
export const IbcHeaderView = Type.Object({
  chain_id: Type.String(),
  height: Type.Integer({ minimum: 1 }),
  block_hash: Type.String({ description: '`hash` of GET /api/v1/blocks/<height>' }),
  state_root: Type.String({ description: 'that block\'s state_root: the root after executing it' }),
  message: Type.String({ description: 'the signed text, ch-pq-lc-v1|<chain_id>|<height>|<block_hash>|<state_root>' }),
  signatures: Type.Array(Type.Object({ validator: Type.String(), public_key: Type.String(), power: Count(), signature: Type.String({ description: 'ML-DSA-65 over the UTF-8 of message, hex' }) })),
  signed_power: Count('power of the signatures held'),
  total_power: Count('power of the set that committed the block'),
  validators: Type.Array(Type.Object({ public_key: Type.String(), power: Count() }), { description: 'the set in ibc/valset at height, ascending by public key' }),
  validators_proof: StateKeyProof,
});

/** `GET /api/v1/ibc/pq/test-vector` (decisions.md §70): a fixed header, key and signature. */
export const IbcTestVectorView = Type.Object({
  chain_id: Type.Literal('test-vector'),
  height: Type.Literal(1000),
  block_hash: Type.String(),
  state_root: Type.String(),
  message: Type.String(),
  seed_hex: Type.String({ description: 'the 32-byte ML-DSA-65 key seed (decisions.md §4\'s vector key)' }),
  public_key: Type.String(),
  signature: Type.String({ description: 'FIPS 204 deterministic ML-DSA-65 of message, empty context' }),
});

export const TxInclusionProof = Type.Object({
  tx_hash: Type.String(),
  leaf_index: Count(),
  leaf_count: Type.Integer({ minimum: 1 }),
  proof: Type.Array(Type.String(), { description: 'sibling hashes, leaf side first' }),
  tx_root: Type.String(),
  block_height: Type.Integer({ minimum: 1 }),
  block_hash: Type.String(),
});

export const GovernanceParamsView = Type.Object({
  params: Type.Record(
    Type.String(),
    Type.Object({
      value: Type.Integer(),
      default: Type.Integer(),
      min: Nullable(Type.Integer()),
      max: Nullable(Type.Integer()),
      description: Type.String(),
      module: Type.String({ description: 'the plugin (or kernel) that declares it' }),
      value_human: Type.Optional(Type.String({ description: 'for an amount of ucoin (decisions.md §21)' })),
      default_human: Type.Optional(Type.String()),
      min_human: Type.Optional(Nullable(Type.String())),
      max_human: Type.Optional(Nullable(Type.String())),
    }),
  ),
  height: Count(),
});

/** `POST /api/v1/transactions` admitted: the submission response of the interface. */
export const TxAccepted = Type.Object({
  tx_hash: Type.String(),
  status: Type.Literal('pending'),
  estimated_block: Type.Integer({ minimum: 1 }),
  sender_balance: Ucoin('the sender\'s balance at admission'),
  sender_balance_human: Human('sender_balance'),
  receiver_balance: Nullable(Ucoin('the receiver\'s balance at admission; null for a transfer to another shard (decisions.md §74)')),
  receiver_balance_human: Nullable(Human('receiver_balance')),
  dest_shard: Type.Optional(Type.Integer({ minimum: 0, description: 'the shard that owns `to`, for a transfer to another shard (decisions.md §74)' })),
  gas_price: Type.Optional(Ucoin('the price admission charged for: the body\'s, or base_fee when omitted (decisions.md §9)')),
  sentinel_score: Type.Optional(Type.Number({ description: 'when the sentinel flagged it' })),
  sentinel_category: Type.Optional(Type.String()),
  sentinel_warning: Type.Optional(Type.String()),
  held: Type.Optional(Type.Unknown({ description: 'the hold, when the policy layer holds it' })),
});

export const CheckpointList = Type.Object({
  checkpoints: Type.Array(Type.Object({ height: Type.Integer({ minimum: 1 }), block_hash: Type.String(), state_root: Type.String(), signer: Type.String(), public_key: Type.String(), signature: Type.String() })),
  interval: Type.Integer({ minimum: 1 }),
  ...PagingFields,
});

export const SnapshotDocument = Type.Record(Type.String(), Type.Unknown(), { description: 'a state snapshot of a certified height (kernel/replica), streamed' });
