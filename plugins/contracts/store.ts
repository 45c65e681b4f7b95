import { Type, type Static } from '@sinclair/typebox';
import { defineIndex, defineStore, isAddress, keyPart, toHex, type IndexReader, type IndexWriter, type ReadonlyStore, type RecordCodec, type Store } from '../../kernel/sdk.js';
import type { InstrumentedCode } from './vm/instrument.js';

/**
 * The contracts plugin's records (its state layout; the README's table is generated from these
 * declarations): a contract's record, its code (shared by contracts with equal code) and its own
 * storage, in the state root; and in the node-local index (outside the state root) the
 * instrumented code, a contract's events and the token transfers by party, which the list routes
 * read. Keys and bytes are those the plugin wrote before its stores were declared
 * (test/converted-state-bytes.test.ts).
 */

const ContractRecordSchema = Type.Object({
  address: Type.String(),
  owner: Type.String(),
  code_hash: Type.String(),
  name: Type.String(),
  description: Type.String(),
  template: Type.Union([Type.String(), Type.Null()]),
  /** From the deploy's init_args.decimals (a JSON number), else 0: converts args.amount of calls. */
  decimals: Type.Integer({ minimum: 0 }),
  deploy_tx: Type.String(),
  created_height: Type.Integer({ minimum: 0 }),
  code_size: Type.Integer({ minimum: 0 }),
  /** decisions.md §47, from the deploy gate (absent on a contract deployed with no gate installed). */
  security_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  risk_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  model: Type.Optional(Type.String()),
  score_source: Type.Optional(Type.Union([Type.Literal('analyzer'), Type.Literal('whitelist'), Type.Literal('operators')])),
});
export type ContractRecord = Static<typeof ContractRecordSchema>;

export const contracts = defineStore('contracts', {
  name: 'contracts',
  description: 'a deployed contract',
  key: ['contract', keyPart.address('address')],
  value: ContractRecordSchema,
});

export const code = defineStore('contracts', {
  name: 'code',
  description: 'the bytecode as deployed, shared by the contracts with equal code',
  key: ['code', keyPart.hash('code_hash')],
  value: Type.Uint8Array(),
  encoding: 'bytes',
});

export const storage = defineStore('contracts', {
  name: 'storage',
  description: "a contract's own storage: the key's bytes in hex (none for an empty key), the value as the contract wrote it",
  key: ['kv', keyPart.address('contract'), keyPart.hex('key', { empty: true })],
  value: Type.Uint8Array(),
  encoding: 'bytes',
});

/** `<code hash>:<max pages>:<max stack>:<metering version>` (vm/engine.ts `meteredKey`). */
const MeteredKey = keyPart.string('metered_key', { pattern: /^0x[0-9a-f]{64}:[0-9]+:[0-9]+:[a-z0-9]+$/ });

export const meteredBinary = defineIndex('contracts', {
  name: 'metered_binary',
  description: 'the instrumented module, written at deploy (a cache: a miss meters the code again)',
  key: ['metered', MeteredKey, 'bin'],
  value: Type.Uint8Array(),
  encoding: 'bytes',
});

const MeteredMetaSchema = Type.Object({
  exports: Type.Array(Type.String()),
  memory: Type.Object({ initial: Type.Integer({ minimum: 0 }), maximum: Type.Integer({ minimum: 0 }) }),
  instanceFuel: Type.Integer({ minimum: 0 }),
});

export const meteredMeta = defineIndex('contracts', {
  name: 'metered_meta',
  description: "the instrumented module's exports, memory limits and instantiation fuel",
  key: ['metered', MeteredKey, 'meta'],
  value: MeteredMetaSchema,
});

/** The n-th contract event of a transaction, at least 4 digits (the order of the transaction's events). */
const EventSeq = keyPart.string('seq', { pattern: /^[0-9]{4,16}$/ });

const ContractEventEntry = Type.Object({
  height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
  contract: Type.String(),
  event: Type.String(),
  data: Type.Unknown({ description: "the event's JSON when it is integers-only and at most 32 deep, else its text" }),
});

export const contractEvents = defineIndex('contracts', {
  name: 'contract_events',
  description: 'an event a contract emitted (GET /api/v1/contracts/:address/events, newest first)',
  key: ['ev', keyPart.address('contract'), keyPart.integer('height'), keyPart.hash('tx_hash'), EventSeq],
  value: ContractEventEntry,
});

const TokenTransferEntry = Type.Object({
  height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
  contract: Type.String(),
  from: Type.Unknown(),
  to: Type.Unknown(),
  amount: Type.Unknown(),
});

export const tokenTransfers = defineIndex('contracts', {
  name: 'token_transfers',
  description: "a contract's Transfer event, under each party that is an address (GET /api/v1/accounts/:address/token-transfers)",
  key: ['tt', keyPart.address('party'), keyPart.integer('height'), keyPart.hash('tx_hash'), EventSeq],
  value: TokenTransferEntry,
});

export const CONTRACTS_STORES = [contracts, code, storage];
export const CONTRACTS_INDEXES = [meteredBinary, meteredMeta, contractEvents, tokenTransfers];

/** The key of a contract's record (inside the namespace). */
export const contractKey = (address: string): string => contracts.key(address);
/** The same, or undefined for text that is no address (a callee a contract made up), which no record has. */
export const contractKeyOf = (address: string): string | undefined => (isAddress(address) ? contracts.key(address) : undefined);
/** A contract record's bytes as the store writes them, for code that reads or lays out state without a context (the contract threads, benches, tests). */
export const contractCodec: RecordCodec<ContractRecord> = {
  encode: (r) => contracts.record.encode(r, 'a contract record'),
  decode: (b) => contracts.record.decode(b, 'a contract record'),
};
export const codeKey = (hash: string): string => code.key(hash);

/** The bytes of state storing `bytes` as new code adds (its key in this plugin's namespace and the bytes): what state growth prices (kernel/chain/state-growth.ts). */
export const storedCodeBytes = (hash: string, bytes: Uint8Array): number => 'contracts/'.length + codeKey(hash).length + bytes.length;
/** The code hash a key of the `code` store names, or undefined for any other key. */
export const codeHashOf = (key: string): string | undefined => code.layout.parse(key)?.[0];
export const storageKey = (address: string, key: Uint8Array): string => storage.key(address, toHex(key));

export function readContract(store: ReadonlyStore, address: string): Promise<ContractRecord | undefined> {
  return isAddress(address) ? contracts.get(store, address) : Promise.resolve(undefined);
}

export async function allContracts(store: ReadonlyStore): Promise<ContractRecord[]> {
  return (await contracts.scan(store)).map((e) => e.value);
}

export function writeContract(store: Store, record: ContractRecord, bytes: Uint8Array): void {
  contracts.set(store, record.address, record);
  code.set(store, record.code_hash, bytes);
}

export function writeMetered(index: IndexWriter, key: string, c: InstrumentedCode): void {
  meteredBinary.set(index, key, c.binary);
  meteredMeta.set(index, key, { exports: [...c.exports], memory: c.memory, instanceFuel: c.instanceFuel });
}

export async function readMetered(index: IndexReader, key: string): Promise<InstrumentedCode | undefined> {
  const binary = await meteredBinary.get(index, key);
  const meta = binary === undefined ? undefined : await meteredMeta.get(index, key);
  return binary === undefined || meta === undefined ? undefined : { binary, exports: meta.exports, memory: meta.memory, instanceFuel: meta.instanceFuel };
}
