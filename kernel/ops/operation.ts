import type { Static, TObject } from '@sinclair/typebox';
import type { ChainError } from '../errors.js';
import type { NetworkEnv, ReadContext, TxContext } from '../context/contexts.js';
import type { Signer } from '../context/signer.js';
import type { DeclaredPayment } from '../model/types.js';

/**
 * A signed operation (decisions.md §16–19), declared by the plugin that owns it the way a Lisk
 * SDK module declares a command: its wire form (routes, socket method, body schema, who acts,
 * what it signs for, what amount it moves, its gas) and its two handlers. The kernel does the
 * rest once for every plugin: route, body validation, who may sign, the signature through the
 * verify-once pool, the actor's millisecond nonce, the fee, relay, inclusion, execution with
 * rollback, `type`/`status`/`error` on the stored transaction, and the gas estimate's entry.
 */
export interface OperationSpec<S extends TObject = TObject> {
  /** The transaction `type` in snake case (`stake`, `register_node`); unique in the build. */
  readonly name: string;
  readonly description: string;
  /** REST routes of part 1 that submit it; `:param`s of the path join the body under their names. */
  readonly routes: ReadonlyArray<OperationRoute>;
  /**
   * The gateway socket method of part 1 that submits it, if any (its params are the body and path
   * params), forwarded to its first route. An operation whose routes are all `nodeOnly` has none
   * at the gateway.
   */
  readonly socketMethod?: string;
  /**
   * Path parameters besides the actor that join the body (a held transfer's `:hash`). No layout covers the URL: `ch-tx-v2` covers no body field but the actor
   * and value anyway (decisions.md §7), and a `ch-tx-v3`/`v4` signature is refused unless the body
   * carries the field too (equal to the path's), so that its payload hash covers it.
   */
  readonly pathFields?: readonly string[];
  /**
   * Path parameters that join the body like `pathFields`, but that a client's `ch-tx-v3`/`v4`
   * payload may leave out, because the spec defines the signed payload without them
   * (decisions.md §45: a vault proposal's `id`). When the body carries one too it must equal the
   * path's and is covered; when it does not, no layout covers it, and a relayer could move the
   * signature to another value of the field: declare one only where the spec leaves no choice, and
   * say so in the plugin's README. (A path parameter that is the operation's actor or its
   * Signs-for address is covered by the message itself and needs neither list.)
   */
  readonly uncoveredPathFields?: readonly string[];
  /**
   * Only a main key of the actor may sign it (decisions.md §31): the action the refusal names
   * (`'manage the trust list'` → 401 "only a main key of the account may manage the trust
   * list: a session key may not"). The kernel refuses any other signer before `check` runs, at
   * admission and again in the block.
   */
  readonly mainKeyOnly?: string;
  /** The body without the signed fields (`signature`, `public_key`, `nonce`, `gas_price`, `gas_limit`, a second signature's field), which the kernel checks itself. */
  readonly schema: S;
  /**
   * The Signs-for address: fixed (`chain:system.stake`) or the body field that names it (a
   * delegation signs for its validator: `{ field: 'validator' }`). Declared, not computed, so
   * clients read it from the node's description (`GET /api/v1/plugins`, decisions.md §87's `x-signs-for`).
   */
  readonly signsFor: string | { readonly field: keyof Static<S> & string };
  /** The body field naming who acts; by default the first of decisions.md §6's list that the schema has. */
  readonly actor?: string;
  /**
   * The actor field may be left out: it is then the key-derived address of the signing
   * `public_key` (decisions.md §90: a recovery request's `requester`). The handlers see it filled.
   */
  readonly actorFromKey?: boolean;
  /** The amount field signed as `<value>`; by default the first of `amount`, `value`, `initial`, `amount_in` the schema has; null for none. */
  readonly value?: string | null;
  /**
   * What the signed `<value>` counts (decisions.md §54): by default `ucoin` (`COIN_UNIT`) taken
   * from the signing account's coin balance, which admission holds against that balance beside
   * the fee, and which is the default of `debits` (a session key's cap). An operation whose value
   * counts something else names its unit from the body: an asset id for units of an asset, any
   * other name for coins of a balance the plugin keeps itself (an exchange balance). The kernel
   * then holds nothing against the coin balance for the value (the transaction's `value` is 0
   * ucoin), and the cap counts only the ucoin the operation declares in `debits` and really
   * takes; the sentinel never sees the value, since only ucoin moves through `ctx.accounts`.
   */
  valueUnit?(body: Static<S>): string;
  /** Base gas: charged before `execute` runs, and the limit of an operation that declares no `gas_limit`. */
  readonly gas: number;
  /**
   * Gas the body's own size costs on top of `gas`, known before anything runs (issue 29: a 15 KB
   * governance proposal for a flat 100 gas). The kernel adds it wherever the operation's gas
   * counts: the fee admission holds, the limit of a body without `gas_limit`, block packing and
   * the charge in the block, so a proposer that skips checkTx charges the same. It sees the body
   * as sent, unchecked (a proposer may include any body): read fields defensively and return a
   * non-negative safe integer, deterministically. The estimate's `operations` lists `gas`, the base.
   */
  bodyGas?(body: Readonly<Record<string, unknown>>): number;
  /**
   * The ucoin the operation takes from the signing account besides its fee (decisions.md §95: a
   * stake, a registration, a deposit, a price, a template fee), judged before it runs: a session
   * key's cap is checked against it at admission and again in the block, before anything is
   * charged. By default the signed value when it counts ucoin (`valueUnit`), else 0; declare it when the operation takes
   * something else (`register_node` bonds `min_stake`) or nothing (a withdrawal back to the
   * account). The kernel also counts what the operation really took (every `ctx.accounts.debit`
   * or `transfer` out of the signing account) and hands that to the signer's grant, so a
   * declaration that says too little cannot spend past a cap: the grant refuses in the block.
   */
  debits?(ctx: ReadContext, op: SignedFields<Static<S>>): Promise<bigint> | bigint;
  /**
   * The coins `execute` will move out of the signing account to another address, known before it
   * runs (an IBC transfer into its channel's escrow, a deposit into a sponsor pool or into the
   * exchange). Admission asks after `check` and the funds check and hands them to `checkTx` on
   * the transaction (`Tx.payments`), so the sentinel refuses there a move it would refuse in the
   * block (decisions.md §99 and §17: judged at admission when it can be). The block judges every
   * move again, declared or not (`beforeTransfer`): a missing declaration changes no outcome, but
   * one that overstates a move makes admission refuse what the block would take, so declare
   * exactly what `execute` moves. Declared moves are judged as moves that cannot wait (not made
   * as plain payments, `TransferOptions.payment`).
   */
  pays?(ctx: ReadContext, op: OperationInput<Static<S>>): Promise<readonly DeclaredPayment[]> | readonly DeclaredPayment[];
  /**
   * Fields the confirmed transaction's view (`GET /api/v1/transactions/:hash`) takes from the data
   * of an event the transaction emitted: the record it created, named as the spec names it on the
   * transaction (a vault proposal's `proposal_id`, decisions.md §44).
   */
  readonly viewFields?: ReadonlyArray<{ readonly field: string; readonly event: string }>;
  /**
   * Its transactions return data (a contract call or deploy): the transaction's view shows
   * `return_data` always (decisions.md §36), `""` when no event of the transaction carried one (it
   * failed, and its events rolled back).
   */
  readonly returnsData?: boolean;
  /** How the signer is authorised and what it signs; the default is the actor's key binding and `ch-tx-v2`/`ch-tx-v3`. */
  readonly signing?: OperationSigning<Static<S>>;
  /**
   * The owning plugin's own checks, against committed state at admission and again against the
   * block's state before `execute` (a proposer may have skipped admission). The refusal's status
   * follows decisions.md §31.
   */
  check?(ctx: ReadContext, op: OperationInput<Static<S>>): Promise<ChainError | undefined>;
  /**
   * Admission only, after `check` and the funds check (so only a submission that can pay buys
   * this work): judgements that need the node's own resources (an off-chain
   * VM pool with its queue and time limit) and so may answer differently on two validators. Never
   * run in the block, so nothing here may be a rule: `execute` judges again with the block's own
   * resources (a deploy metered on the block thread). `check` runs in the block and must stay
   * deterministic.
   */
  admit?(ctx: ReadContext, op: OperationInput<Static<S>>): Promise<ChainError | undefined>;
  /** Applies the operation in the block; a throw fails it with its writes rolled back, fee and nonce kept. */
  execute(ctx: TxContext, op: OperationInput<Static<S>>): Promise<OperationResult | void>;
}

/** A REST route that submits an operation. */
export interface OperationRoute {
  readonly method: 'POST' | 'PUT' | 'PATCH';
  readonly path: string;
  /**
   * Part 1 marks the route "Node only": nodes serve it, the gateway neither serves nor forwards
   * it (its clients get 404), as for every node-only path.
   */
  readonly nodeOnly?: boolean;
  /**
   * For a route several operations share (part 1's `POST /api/v1/nodes/register` registers a
   * `.node`, or with a `.vault` or `.app` `node_address` a vault or an app name): the bodies this
   * schema accepts are this operation's. At most one operation of a shared route declares none:
   * it takes every other body. Each keeps its own schema, gas, signing and handlers; the route,
   * the gateway and a block's transaction all pick the operation with the same rule
   * (kernel/ops/route-dispatch.ts), so a body always means one operation.
   */
  readonly selectedBy?: TObject;
}

/**
 * The variations of signing that operations need; every signature goes through the one verifier.
 * `ch-tx-v4` (decisions.md §94) is accepted for every operation whatever it declares here, and is
 * the only layout a network that requires strong signatures takes.
 */
export interface OperationSigning<B> {
  /**
   * The operation signs its own layout instead of `ch-tx-v2`/`ch-tx-v3` (identity:
   * `ch-rotate|<addr>|<add>|<remove>|<nonce>`), where the network accepts weak signatures. An own
   * layout covers no price and no limit: such a signature pays exactly `base_fee` per gas
   * (decisions.md §95), and a body carrying `gas_limit` needs v4.
   */
  readonly message?: (op: SignedFields<B>) => string;
  /**
   * With `message`: `ch-tx-v2`/`ch-tx-v3` are accepted too (held transfers take part 2's
   * `ch-tx-v2|<owner>|chain:system.trust|0|<nonce>` besides their own layout, decisions.md §89).
   */
  readonly acceptsTxLayouts?: boolean;
  /**
   * Body fields the own layout covers but a client may leave out, filled from state before the
   * signature is checked (a guardian's vote names the target's open request, decisions.md §90).
   * The handlers see the filled body. A signature over an own layout with filled fields depends on
   * state, so it is checked where the state is known: at admission and when the block executes
   * the operation (a failure there fails it with nothing charged), not when a proposal is
   * validated. `ch-tx-v3`/`v4` cover the body as sent, so they need the fields in it (401).
   */
  readonly resolve?: {
    readonly fields: readonly string[];
    fill(ctx: ReadContext, op: SignedFields<B>): Promise<Partial<B> | ChainError>;
  };
  /**
   * A second signature over a layout the operation defines (assets: `_psig` over
   * `ch-asset-op-v1|<op>|<from>|<fields>|<nonce>`, decisions.md §54), by the key in `public_key`,
   * checked through the same verifier at admission and again when a block carrying it is
   * validated: a value present that does not verify is 401 on every network, a missing one 401
   * where `required` says.
   */
  readonly secondSignature?: {
    readonly field: string;
    /** The text it covers (`SecondSignatureInput`: the operation, its name, the body as sent). */
    readonly message: (op: SecondSignatureInput<B>) => string;
    /** Whether the network requires it (absent: optional, checked when present). */
    readonly required: (env: NetworkEnv) => boolean;
  };
  /**
   * Authorised by the signer's public key being in a configured set rather than by an address
   * binding (IBC operators, `CHAIN_IBC_OPERATOR_PUBKEYS`); the signer is then of kind `operator`
   * and pays its fee from the address its key derives.
   */
  readonly operatorKeys?: (ctx: ReadContext) => Promise<readonly string[]> | readonly string[];
  /**
   * Only `ch-tx-v4` on every network, test networks included: `ch-tx-v2`, `ch-tx-v3` and an own
   * layout are refused with 401 (IBC, decisions.md §63: with two chains a signature must name its
   * chain and its act).
   */
  readonly v4Only?: boolean;
}

/** What a signed layout may cover: the operation as the kernel parsed it. */
export interface SignedFields<B> {
  readonly body: B;
  readonly actor: string;
  readonly target: string;
  readonly value: bigint;
  readonly nonce: bigint;
}

/** What a second signature's layout may cover: the signed fields, the operation's name, and the body as sent. */
export interface SecondSignatureInput<B> extends SignedFields<B> {
  /** The operation's type (`swap`): a layout that names it is good for that operation only. */
  readonly name: string;
  /**
   * The body as the client sent it without `signature`, `public_key` and the second signature's
   * field (so with `nonce`, and `gas_price` / `gas_limit` when sent): what the payload hash of
   * `ch-tx-v3`/`v4` covers, whose canonical JSON (`canonicalJson`) a layout over "the exact
   * payload" signs.
   */
  readonly sent: Readonly<Record<string, unknown>>;
}

/** An operation as its handlers see it. */
export interface OperationInput<B> extends SignedFields<B> {
  readonly name: string;
  readonly txHash: string;
  /** Who signed, as authorization decided in this block (or at admission, in `check` there). */
  readonly signer: Signer;
}

/**
 * What `execute` may report: the gas it really used (metered work), counted from the declared
 * base up. Above the transaction's gas limit (`ctx.gasLimit`) the operation fails out of gas:
 * its writes roll back and the fee of the whole limit is charged.
 */
export interface OperationResult {
  readonly gas?: number;
}

/** The unit of a value taken from an account's coin balance: the default of `OperationSpec.valueUnit`. */
export const COIN_UNIT = 'ucoin';

/** Keeps the body type of a spec checked where it is written. */
export function defineOperation<S extends TObject>(spec: OperationSpec<S>): OperationSpec<S> {
  return spec;
}
