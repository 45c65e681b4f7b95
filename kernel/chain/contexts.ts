import type { AdmissionContext, GenesisContext, NetworkEnv, ProposalContext, ReadContext, TxContext, WriteContext } from '../hooks.js';
import { SCOPE } from '../host/scoping.js';
import type { StateOverlay, StateSource } from '../state/overlay.js';
import type { ParamRegistry } from '../state/params.js';
import { readonlyStore, writableStore } from '../state/prefixed-store.js';
import { accountsReader, accountsWriter } from '../state/accounts.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { BlockInfo, Tx } from './types.js';
import { checkEvent, type EventSink } from './block-events.js';
import type { IndexStage } from './index-stage.js';

/**
 * Builders of the contexts hooks receive. The kernel builds one unscoped context per call; the
 * host re-scopes it per plugin through SCOPE, so `store` is always the tapping plugin's own.
 */
export interface ContextEnv {
  readonly env: NetworkEnv;
  readonly params: ParamRegistry;
}

export function readContext(e: ContextEnv, source: StateSource, height: number): ReadContext {
  const make = (ns: string): ReadContext => ({
    height,
    env: e.env,
    params: e.params.reader(source),
    accounts: accountsReader(source),
    store: readonlyStore(source, ns),
    read: (other: string) => readonlyStore(source, other),
    [SCOPE]: (plugin: string) => make(plugin),
  } as ReadContext);
  return make('kernel');
}

/** checkTx's context: `respond` collects fields for the submission response (dropped when nobody is answered). */
export function admissionContext(e: ContextEnv, source: StateSource, height: number, respond: (fields: Readonly<Record<string, unknown>>) => void = () => undefined): AdmissionContext {
  const make = (ns: string): AdmissionContext => ({ ...readContext(e, source, height), store: readonlyStore(source, ns), respond, [SCOPE]: (p: string) => make(p) } as AdmissionContext);
  return make('kernel');
}

export function proposalContext(e: ContextEnv, source: StateSource, block: BlockInfo): ProposalContext {
  const make = (ns: string): ProposalContext => ({ ...readContext(e, source, block.height), store: readonlyStore(source, ns), block, [SCOPE]: (p: string) => make(p) } as ProposalContext);
  return make('kernel');
}

/** Where a write context's output goes besides state: its events and its plugins' index writes. */
export interface WriteOutputs {
  readonly emit: EventSink;
  readonly index: IndexStage;
}

export function writeContext(e: ContextEnv, overlay: StateOverlay, block: BlockInfo, out: WriteOutputs): WriteContext {
  const make = (ns: string): WriteContext => ({
    height: block.height,
    env: e.env,
    block,
    params: e.params.reader(overlay),
    accounts: accountsWriter(overlay),
    store: writableStore(overlay, ns),
    read: (other: string) => readonlyStore(overlay, other),
    emit: (event) => {
      checkEvent(event);
      out.emit(event);
    },
    index: out.index.writer(ns),
    [SCOPE]: (plugin: string) => make(plugin),
  } as WriteContext);
  return make('kernel');
}

export function txContext(e: ContextEnv, overlay: StateOverlay, block: BlockInfo, out: WriteOutputs, tx: Tx): TxContext {
  const make = (ns: string): TxContext => {
    const base = writeContext(e, overlay, block, out);
    return { ...base, store: writableStore(overlay, ns), index: out.index.writer(ns), tx, [SCOPE]: (p: string) => make(p) } as TxContext;
  };
  return make('kernel');
}

export function genesisContext(e: ContextEnv, overlay: StateOverlay, block: BlockInfo, genesis: GenesisDoc, out: WriteOutputs): GenesisContext {
  const make = (ns: string): GenesisContext => {
    const base = writeContext(e, overlay, block, out);
    return { ...base, store: writableStore(overlay, ns), index: out.index.writer(ns), genesis, [SCOPE]: (p: string) => make(p) } as GenesisContext;
  };
  return make('kernel');
}
