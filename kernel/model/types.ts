/**
 * The chain's core records. Amounts and nonces are bigint; heights, rounds, gas and timestamps
 * are safe integers. Wire encoding (JSON with `*_human`) lives in node/views.ts.
 */

/** The layout a signature verified under: `ch-tx-v2`, `ch-tx-v3`, `ch-tx-v4`, or an operation's own (identity, held transfers). */
export type SignatureLayout = 'v2' | 'v3' | 'v4' | 'own';

/** Dispatch key prefix of a signed operation's transaction: `op:<name>`. */
export const OPERATION_TARGET_PREFIX = 'op:';

/** The operation a transaction carries, or undefined for transfers and system transactions. */
export function operationOf(tx: Pick<Tx, 'target'>): string | undefined {
  return tx.target.startsWith(OPERATION_TARGET_PREFIX) ? tx.target.slice(OPERATION_TARGET_PREFIX.length) : undefined;
}

/** A transaction as it travels through mempool, proposal and execution. */
export interface Tx {
  /** `0x` SHA3-256 of the canonical JSON of the fields the sender set (decisions.md §12). */
  readonly hash: string;
  /** `signed` = a user transaction with an ML-DSA-65 signature; `system` = created by a plugin (e.g. faucet credit). */
  readonly origin: 'signed' | 'system';
  /** Dispatch key of the executeTx HookMap: `transfer`, a system address, or a system tx type. */
  readonly target: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly nonce: bigint;
  /**
   * The price per gas it pays: the body's `gas_price` when its signature covers it (v3, v4), else
   * `base_fee` (an omitted price, a v2 or own-layout signature: decisions.md §9, §95). Before the
   * signature is verified it is the body's price or `base_fee`, an upper bound.
   */
  readonly gasPrice: bigint;
  readonly data: string | undefined;
  /** The exact body as submitted (signed) or created (system); hashed and stored verbatim. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Canonical JSON of `body`: the text `hash` is the SHA3-256 of, and what proposals and the store carry. */
  readonly canonical: string;
  /** Which signed layout verified (signed transactions only). */
  readonly sigVersion: SignatureLayout | undefined;
  /** Node-local wall-clock ms when first seen: display only, never consensus input. */
  readonly receivedAt: number;
  /**
   * What admission holds of account balances while the transaction is pending (node-local, never
   * hashed nor carried in blocks): the declared debit from the signing account, the fee of the
   * whole gas limit from its payer. The mempool sums them per account so that two pending
   * transactions cannot together spend more than a balance (kernel/mempool). Absent: the value
   * and the fee of the gas limit, from `from`.
   */
  readonly holds?: readonly BalanceHold[];
  /**
   * What admission judged the signer's grant against (node-local, never hashed nor carried): a
   * plain transaction's value, an operation's declared debit. A session key's cap counts it for
   * the key's other pending transactions (`SignRequest.pendingDebit`).
   */
  readonly declaredDebit?: bigint;
  /**
   * An operation's moves of coins out of the signing account as it declares them at admission
   * (`OperationSpec.pays`; node-local, never hashed nor carried), for `checkTx` to judge as it
   * judges a plain transfer. Absent for plain transactions (their `to` and `value` say it) and for
   * operations that declare none.
   */
  readonly payments?: readonly DeclaredPayment[];
  /**
   * The kind of key that signed the transaction or operation, as authorization judged it at
   * admission (node-local, never hashed nor carried): the block's `beforeTransfer` sees the same
   * (`TransferIntent.signer`), so `checkTx` judges a move with it (a record's owner signing for
   * it is `main`). Absent before authorization, and on transactions received in a block.
   */
  readonly signerKind?: SignerKind;
}

/**
 * Who signed a transaction or operation, as authorization decided it (kernel/context/signer.ts).
 * Handlers and plugins read it to refuse what only a main key may do (decisions.md §31: a session
 * key may not grant keys, rotate, manage the trust list or confirm a held transfer).
 */
export type SignerKind = 'main' | 'session' | 'member' | 'operator' | 'guardian';

/** A move of coins out of an operation's signing account, as the operation declares it before it runs. */
export interface DeclaredPayment {
  /** Whose coins: the signing account when absent; an account the operation moves them out of on its behalf (a vault's payout). */
  readonly from?: string;
  /** Where the coins land: the address the block's `beforeTransfer` shows as the move's recipient. */
  readonly to: string;
  readonly value: bigint;
}

/** An amount of an account's balance held for a pending transaction. */
export interface BalanceHold {
  readonly account: string;
  readonly amount: bigint;
}

export interface BlockHeader {
  readonly chain_id: string;
  readonly height: number;
  readonly round: number;
  readonly parent_hash: string;
  readonly proposer: string;
  readonly timestamp: number;
  readonly tx_root: string;
  readonly tx_count: number;
  /** State root after the parent block: a validator whose own root differs refuses to vote. */
  readonly prev_state_root: string;
  readonly base_fee: bigint;
  readonly shard: number;
  /** `0x` SHA3-256 of the canonical JSON list of the block's evidence ids. */
  readonly evidence_hash: string;
  /**
   * The set that decides this block (decisions.md §72, §84): `0x` SHA3-256 of
   * `ch-valset-v1|<count>|<address>|<power>|<public_key>|…`, ascending by address. With it a
   * light client checks a served set against a certified header.
   */
  readonly validators_hash: string;
  /** The same hash of the set that decides the next height (known: the set lags by SET_CHANGE_DELAY). */
  readonly next_validators_hash: string;
}

/**
 * Verified misbehaviour as a block carries it and the `evidence` hook sees it. `raw` is the
 * consensus layer's proof (`ConsensusEvidence`: both signed votes) in its JSON wire form; `hash`
 * identifies the offence so each piece applies once.
 */
export interface Evidence {
  readonly hash: string;
  readonly kind: 'duplicate-vote';
  readonly validator: string;
  readonly height: number;
  readonly round: number;
  readonly raw: unknown;
}

/** A committed block as stored: the header, its hash, and what executing it produced. */
export interface BlockRecord {
  readonly header: BlockHeader;
  readonly hash: string;
  readonly state_root: string;
  readonly gas_used: number;
  readonly fees_burned: bigint;
  readonly tx_hashes: readonly string[];
  readonly evidence: readonly Evidence[];
}

/**
 * A block once committed, with what executing it produced: what the store writes in the block's
 * batch and what the `committed` hook and the chain's observers receive.
 */
export interface CommittedBlock {
  readonly block: BlockRecord;
  readonly txs: readonly Tx[];
  readonly receipts: readonly Receipt[];
  /** Every event of the block in execution order, each `index` its place in this list. */
  readonly events: readonly BlockEvent[];
}

/**
 * The commit certificate of a decided block: its bytes as stored (the consensus layer's JSON
 * form), and the validators whose precommits it carries (for the node-local activity figures),
 * which the consensus engine that decoded it already knows, so the commit path does not parse the
 * certificate back.
 */
export interface DecidedCommit {
  readonly bytes: Uint8Array;
  readonly signers: readonly string[];
}

export type TxStatus = 'pending' | 'confirmed' | 'failed';

export interface Receipt {
  readonly tx_hash: string;
  readonly status: 'confirmed' | 'failed';
  readonly gas: number;
  /** `gas × gas_price` (part 1, Amounts 4). */
  readonly fee: bigint;
  /** `gas × base_fee`, the part of `fee` burned. */
  readonly fee_burned: bigint;
  /**
   * `base_fee` × the gas limit it declared and did not use, burned on top of `fee`
   * (docs/architecture.md, "Unused gas"); absent when nothing was left unused.
   */
  readonly unused_gas_fee?: bigint;
  /** The storage fee burned for the net new bytes of state it stored beyond the free allowance (chain/state-growth.ts); absent when none. */
  readonly storage_fee?: bigint;
  readonly error: string | null;
  readonly block: number;
  readonly index: number;
}

/** Something a plugin wants observers (gateway, indexers) to see; never read back by consensus. */
export interface ChainEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The part of block execution an event was emitted in (ABCI++ keeps the same split). */
export type EventPhase = 'begin_block' | 'tx' | 'end_block' | 'evidence';

/**
 * An event as the block stores it: where it came from, and its place in the block's event list
 * (execution order: begin_block, each successful transaction, evidence, end_block).
 */
export interface BlockEvent extends ChainEvent {
  readonly height: number;
  readonly index: number;
  /** The transaction that emitted it; null outside the transaction phase. */
  readonly tx_hash: string | null;
  readonly phase: EventPhase;
}

export interface BlockInfo {
  readonly chainId: string;
  readonly height: number;
  readonly round: number;
  readonly timestamp: number;
  readonly proposer: string;
}
