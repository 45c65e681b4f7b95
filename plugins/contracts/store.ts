import { jsonRecord, toHex, type IndexReader, type IndexWriter, type ReadonlyStore, type Store } from '../../kernel/sdk.js';
import type { InstrumentedCode } from './vm/instrument.js';
import type { ScoreSource } from './execute.js';

/**
 * The contracts plugin's records, in its namespace:
 * - `contract/<address>`: ContractRecord
 * - `code/<code hash>`: the bytecode as deployed (raw bytes), shared by contracts with equal code
 * - `kv/<address>/<hex key>`: a contract's own storage (raw bytes)
 *
 * And in its node-local index (outside the state root, a cache only):
 * - `metered/<code hash>:<max pages>:<max stack>:<metering version>/bin`: the instrumented module, written at deploy
 * - `metered/<…>/meta`: its exports, memory limits and instantiation fuel
 */
export interface ContractRecord {
  readonly address: string;
  readonly owner: string;
  readonly code_hash: string;
  readonly name: string;
  readonly description: string;
  readonly template: string | null;
  /** From the deploy's init_args.decimals (a JSON number), else 0: converts args.amount of calls. */
  readonly decimals: number;
  readonly deploy_tx: string;
  readonly created_height: number;
  readonly code_size: number;
  /** decisions.md §47, from the deploy gate (absent on a contract deployed with no gate installed). */
  readonly security_score?: number;
  readonly risk_score?: number;
  readonly model?: string;
  readonly score_source?: ScoreSource;
}

export const contractCodec = jsonRecord<ContractRecord>();

export const contractKey = (address: string): string => `contract/${address}`;
export const codeKey = (hash: string): string => `code/${hash}`;
export const storageKey = (address: string, key: Uint8Array): string => `kv/${address}/${toHex(key)}`;

export function readContract(store: ReadonlyStore, address: string): Promise<ContractRecord | undefined> {
  return store.getRecord(contractKey(address), contractCodec);
}

export async function allContracts(store: ReadonlyStore): Promise<ContractRecord[]> {
  return (await store.scan('contract/')).map(([, v]) => contractCodec.decode(v));
}

export function writeContract(store: Store, record: ContractRecord, code: Uint8Array): void {
  store.setRecord(contractKey(record.address), record, contractCodec);
  store.set(codeKey(record.code_hash), code);
}

interface MeteredMeta {
  readonly exports: readonly string[];
  readonly memory: { readonly initial: number; readonly maximum: number };
  readonly instanceFuel: number;
}

const meteredCodec = jsonRecord<MeteredMeta>();

export function writeMetered(index: IndexWriter, key: string, code: InstrumentedCode): void {
  index.put(`metered/${key}/bin`, code.binary);
  index.putRecord(`metered/${key}/meta`, { exports: code.exports, memory: code.memory, instanceFuel: code.instanceFuel }, meteredCodec);
}

export async function readMetered(index: IndexReader, key: string): Promise<InstrumentedCode | undefined> {
  const binary = await index.get(`metered/${key}/bin`);
  const meta = binary === undefined ? undefined : await index.getRecord(`metered/${key}/meta`, meteredCodec);
  return binary === undefined || meta === undefined || typeof meta.instanceFuel !== 'number' ? undefined : { binary, exports: meta.exports, memory: meta.memory, instanceFuel: meta.instanceFuel };
}
