import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, HookMap, SyncHook } from 'tapable';
import type { ChainError } from '../errors.js';
import type { CommittedBlock, Tx } from '../model/types.js';
import type { RouteTable } from './route-table.js';
import type { Signer, SignerAnswer, SignRequest } from '../context/signer.js';
import type {
  AdmissionContext,
  EndBlockResult,
  GenesisContext,
  ProposalContext,
  QueryContext,
  ReadContext,
  ReportedEvidence,
  TransferIntent,
  TransferTakeover,
  TxContext,
  TxOutcome,
  WriteContext,
} from '../context/contexts.js';

/**
 * Every hook point between the kernel and its plugins, declared once and frozen (the shape of
 * webpack's `Compiler.hooks`). The consensus hooks follow CometBFT's ABCI++ boundary:
 * checkTx ~ CheckTx, prepareProposal/processProposal ~ PrepareProposal/ProcessProposal,
 * beginBlock + executeTx + endBlock ~ FinalizeBlock, committed ~ after Commit.
 *
 * The contexts the hooks are called with are context/contexts.ts.
 */

/** The consensus hooks: tapped only by state plugins, in the network's ordered plugin list. */
export const CONSENSUS_HOOKS = ['initGenesis', 'checkTx', 'prepareProposal', 'processProposal', 'beginBlock', 'executeTx', 'endBlock', 'evidence', 'resolveSigner', 'ownerOf', 'recordExists', 'resolveName', 'accountName', 'feePayer', 'beforeTransfer'] as const;
/** The hooks a service plugin may tap. */
export const SERVICE_HOOKS = ['committed', 'routes', 'rpcMethods', 'query'] as const;
export type HookName = (typeof CONSENSUS_HOOKS)[number] | (typeof SERVICE_HOOKS)[number];

export function createHooks() {
  return Object.freeze({
    initGenesis: new AsyncSeriesHook<[GenesisContext]>(['ctx'], 'initGenesis'),
    checkTx: new AsyncSeriesBailHook<[AdmissionContext, Tx], ChainError | undefined>(['ctx', 'tx'], 'checkTx'),
    prepareProposal: new AsyncSeriesWaterfallHook<[Tx[], ProposalContext]>(['txs', 'ctx'], 'prepareProposal'),
    processProposal: new AsyncSeriesBailHook<[ProposalContext, readonly Tx[]], string | undefined>(['ctx', 'txs'], 'processProposal'),
    beginBlock: new AsyncSeriesHook<[WriteContext]>(['ctx'], 'beginBlock'),
    executeTx: new HookMap<AsyncSeriesBailHook<[TxContext, Tx], TxOutcome | undefined>>(
      (key: string) => new AsyncSeriesBailHook<[TxContext, Tx], TxOutcome | undefined>(['ctx', 'tx'], `executeTx:${key}`),
      'executeTx',
    ),
    endBlock: new AsyncSeriesWaterfallHook<[EndBlockResult, WriteContext]>(['result', 'ctx'], 'endBlock'),
    evidence: new AsyncSeriesHook<[WriteContext, ReportedEvidence]>(['ctx', 'evidence'], 'evidence'),
    /**
     * Authorization (Lisk's auth module as an extension point): asked when a key is not a main
     * key of the actor or its owner; the first plugin that grants or refuses decides. Runs at
     * admission and again in the block, so a grant revoked in between does not apply.
     */
    resolveSigner: new AsyncSeriesBailHook<[ReadContext, SignRequest], SignerAnswer>(['ctx', 'req'], 'resolveSigner'),
    /** The `.human` owner a record address of this kind acts through (decisions.md §19), by address kind. */
    ownerOf: new HookMap<AsyncSeriesBailHook<[ReadContext, string], string | undefined>>(
      (kind: string) => new AsyncSeriesBailHook<[ReadContext, string], string | undefined>(['ctx', 'address'], `ownerOf:${kind}`),
      'ownerOf',
    ),
    /** Whether a record of this kind exists at the address, which makes it a valid transfer recipient. */
    recordExists: new HookMap<AsyncSeriesBailHook<[ReadContext, string], boolean | undefined>>(
      (kind: string) => new AsyncSeriesBailHook<[ReadContext, string], boolean | undefined>(['ctx', 'address'], `recordExists:${kind}`),
      'recordExists',
    ),
    /**
     * A registered name that stands for an account (decisions.md §39: a `.human` name, an
     * `.agent`), by address kind: the account it resolves to now, asked whenever the name is
     * used. Coins sent to it by a plain transaction, or paid to it by a plugin through
     * `ctx.recipients.payee`, credit that account; `GET /api/v1/accounts/<name>` answers that
     * account; a plain transaction from the name is refused (400: a name holds no balance). A
     * key-derived address is never asked about.
     */
    resolveName: new HookMap<AsyncSeriesBailHook<[ReadContext, string], string | undefined>>(
      (kind: string) => new AsyncSeriesBailHook<[ReadContext, string], string | undefined>(['ctx', 'address'], `resolveName:${kind}`),
      'resolveName',
    ),
    /** The name an account is shown with: `custom_address` of its account record (decisions.md §39), undefined for none. */
    accountName: new AsyncSeriesBailHook<[ReadContext, string], string | undefined>(['ctx', 'address'], 'accountName'),
    /**
     * Who pays a transaction's fee when not the signing account (sponsors); the first answer wins.
     * `maxFee` is the largest fee the transaction can be charged (its gas limit × its price): a
     * payer must be able to cover it.
     */
    feePayer: new AsyncSeriesBailHook<[ReadContext, Tx, Signer, bigint], string | undefined>(['ctx', 'tx', 'signer', 'maxFee'], 'feePayer'),
    /** Before coins leave a transaction's signing account for another (`TransferIntent`): a tap may refuse (throw), or take a holdable one over (holds). */
    beforeTransfer: new AsyncSeriesBailHook<[TxContext, TransferIntent], TransferTakeover | undefined>(['ctx', 'transfer'], 'beforeTransfer'),
    committed: new AsyncParallelHook<[CommittedBlock]>(['committed'], 'committed'),
    routes: new SyncHook<[RouteTable]>(['routes'], 'routes'),
    rpcMethods: new HookMap<AsyncSeriesBailHook<[Record<string, unknown>], unknown>>(
      (key: string) => new AsyncSeriesBailHook<[Record<string, unknown>], unknown>(['params'], `rpcMethods:${key}`),
      'rpcMethods',
    ),
    query: new HookMap<AsyncSeriesBailHook<[QueryContext, Record<string, unknown>], unknown>>(
      (key: string) => new AsyncSeriesBailHook<[QueryContext, Record<string, unknown>], unknown>(['ctx', 'params'], `query:${key}`),
      'query',
    ),
  });
}

export type Hooks = ReturnType<typeof createHooks>;
