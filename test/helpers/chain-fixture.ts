import { shardOf } from '../../kernel/crypto/fnv.js';
import assert from 'node:assert/strict';
import { isChainError } from '../../kernel/errors.js';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createHooks, type Hooks } from '../../kernel/host/hooks.js';
import { PluginHost } from '../../kernel/host/host.js';
import type { PluginDefinition } from '../../kernel/host/plugin.js';
import { ParamRegistry } from '../../kernel/state/params.js';
import { ChainStore } from '../../kernel/store/chain-store.js';
import { MemoryStore } from '../../kernel/store/level-store.js';
import type { KvStore } from '../../kernel/state/kv.js';
import type { TxTextLog } from '../../kernel/store/tx-text-log.js';
import { Chain, type EvidenceVerifier } from '../../kernel/chain/chain.js';
import { KERNEL_PARAMS } from '../../kernel/chain/kernel-params.js';
import { CachingVerifier, type SignatureVerifier } from '../../kernel/crypto/verifier.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { deriveAddress } from '../../kernel/crypto/address.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { operationPayloadHash } from '../../kernel/crypto/signed-message.js';
import { plainSigningFields, txSigningMessage, type TxLayout } from '../../kernel/tx/signing.js';
import { parseHex, toHex } from '../../kernel/codec/hex.js';
import { signVote } from '../../kernel/consensus/index.js';
import { decidedCommit } from '../../kernel/replica/decided-commit.js';
import { ValidatorSet } from '../../kernel/consensus/validator-set.js';
import { validateConfig } from '../../kernel/config/load.js';
import { OperationRegistry } from '../../kernel/ops/registry.js';
import { QueryService } from '../../kernel/node/queries.js';
import { accountsReader, type AccountRecord } from '../../kernel/state/accounts.js';
import { readonlyStore, type ReadonlyStore } from '../../kernel/state/prefixed-store.js';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import { testGenesis, type TestGenesisValidator } from './genesis.js';
import type { KeyPair, SignatureProvider } from '../../kernel/crypto/provider.js';

export interface Wallet {
  readonly keys: KeyPair;
  readonly address: string;
  readonly publicKeyHex: string;
}

/** The `skip`-th deterministic wallet (from index 180 up) whose address shard `shard` of `nShards` owns (decisions.md §71). */
export function walletOnShard(shard: number, nShards: number, skip = 0): Wallet {
  for (let i = 180; i < 256; i++) if (shardOf(wallet(i).address, nShards) === shard && skip-- === 0) return wallet(i);
  throw new Error(`no wallet of shard ${shard} of ${nShards}`);
}

/** Deterministic wallets: the seed is the index repeated, so tests need no randomness. */
export function wallet(index: number): Wallet {
  // fill() keeps only the low byte: index 256 would silently be wallet 0 again.
  if (!Number.isInteger(index) || index < 0 || index > 255) throw new RangeError(`wallet index ${index} is outside 0..255; use labelledWallet for more`);
  const keys = nobleProvider.keygen(new Uint8Array(32).fill(index));
  return { keys, address: deriveAddress(keys.publicKey), publicKeyHex: toHex(keys.publicKey) };
}

/** As many distinct deterministic wallets as needed: the seed is the SHA3-256 of the label. */
export function labelledWallet(label: string): Wallet {
  const keys = nobleProvider.keygen(sha3(label));
  return { keys, address: deriveAddress(keys.publicKey), publicKeyHex: toHex(keys.publicKey) };
}

/** The chain id of `makeChain`'s fixture chains. */
export const FIXTURE_CHAIN_ID = 'test-chain';
let signingChainId = FIXTURE_CHAIN_ID;

/**
 * The chain id the signing helpers put in `ch-tx-v4` when a call names none: the fixture's, until a
 * test talks to another chain (`startTestDevnet` and `startNodeProcess` set it to theirs).
 */
export function setSigningChainId(chainId: string): void {
  signingChainId = chainId;
}

export interface TransferSpec {
  /** Signs as this address instead of the wallet's own (an outsider's attempt). */
  from?: string;
  to: string;
  value: number;
  nonce: number;
  gas_price?: number;
  data?: string;
  gas_limit?: number;
  /** The layout signed: `v4` (what shipped clients sign) unless a test wants a part 2 client's. */
  version?: TxLayout;
  /** For v3/v4 without `gas_price`: the base fee the signature covers (1, the default parameter). */
  baseFee?: bigint;
  /** For v4: another chain's id (a replay across networks). */
  chainId?: string;
}

/**
 * A signed transfer body; `signer` may be any conforming provider (ML-DSA signing here is
 * deterministic). The signed bytes come from the kernel's own builder (kernel/tx/signing.ts).
 */
export function signTransfer(w: Wallet, t: TransferSpec, signer: Pick<SignatureProvider, 'sign'> = nobleProvider): Record<string, unknown> {
  const from = t.from ?? w.address;
  const unsigned: Record<string, unknown> = {
    from,
    to: t.to,
    value: t.value,
    nonce: t.nonce,
    ...(t.gas_price !== undefined ? { gas_price: t.gas_price } : {}),
    ...(t.data !== undefined ? { data: t.data } : {}),
    ...(t.gas_limit !== undefined ? { gas_limit: t.gas_limit } : {}),
  };
  const fields = plainSigningFields({ from, to: t.to, value: BigInt(t.value), nonce: BigInt(t.nonce), gas_price: t.gas_price === undefined ? undefined : BigInt(t.gas_price), gas_limit: t.gas_limit, data: t.data });
  const msg = txSigningMessage(t.version ?? 'v4', fields, { chainId: t.chainId ?? signingChainId, baseFee: t.baseFee ?? 1n });
  return { ...unsigned, public_key: w.publicKeyHex, signature: toHex(signer.sign(msg, w.keys.secretKey)) };
}

export interface OperationSpecForSigning {
  /**
   * The operation's type (`grant_session`): `ch-tx-v4`'s kind. Given, the body is signed v4
   * unless `version` says otherwise; left out (callers written before v4), `ch-tx-v2`.
   */
  kind?: string;
  actor: string;
  target: string;
  value?: number;
  nonce: number;
  body: Record<string, unknown>;
  version?: TxLayout;
  gas_price?: number;
  gas_limit?: number;
  baseFee?: bigint;
  chainId?: string;
}

/**
 * A signed operation body (decisions.md §6–7, §94): `ch-tx-v4` over the kind, actor, target,
 * value, nonce, price, limit and the body without signature and public key (or v3, v2 when a test
 * plays a part 2 client); `nonce` is a millisecond timestamp. The bytes come from the kernel's
 * builder; actor, target and value are the caller's, so a test can sign what a forger would.
 */
export function signOperation(w: Pick<Wallet, 'keys' | 'publicKeyHex'>, o: OperationSpecForSigning): Record<string, unknown> {
  const unsigned: Record<string, unknown> = { ...o.body, nonce: o.nonce, ...(o.gas_price !== undefined ? { gas_price: o.gas_price } : {}), ...(o.gas_limit !== undefined ? { gas_limit: o.gas_limit } : {}) };
  const version = o.version ?? (o.kind === undefined ? 'v2' : 'v4');
  if (version === 'v4' && o.kind === undefined) throw new Error('signOperation: ch-tx-v4 names the operation: give its kind');
  // The price and limit the node reads are the body's, wherever the caller put them.
  const price = unsigned.gas_price;
  const limit = unsigned.gas_limit;
  const fields = { kind: o.kind ?? '', actor: o.actor, target: o.target, value: BigInt(o.value ?? 0), nonce: BigInt(o.nonce), gasPrice: typeof price === 'number' ? BigInt(price) : undefined, gasLimit: typeof limit === 'number' ? limit : undefined, payloadHash: operationPayloadHash(unsigned) };
  const msg = txSigningMessage(version, fields, { chainId: o.chainId ?? signingChainId, baseFee: o.baseFee ?? 1n });
  return { ...unsigned, public_key: w.publicKeyHex, signature: toHex(nobleProvider.sign(msg, w.keys.secretKey)) };
}

/**
 * A signed body for an operation that signs its own layout (identity: `ch-rotate|…`): `message`
 * is the exact text, built by the caller from the body and `nonce` with the plugin's exported
 * layout (plugins/identity/messages.ts).
 */
export function signOwnLayout(w: Pick<Wallet, 'keys' | 'publicKeyHex'>, message: string, body: Record<string, unknown>, nonce: number): Record<string, unknown> {
  return { ...body, nonce, public_key: w.publicKeyHex, signature: toHex(nobleProvider.sign(new TextEncoder().encode(message), w.keys.secretKey)) };
}

export const VALIDATOR_KEY = nobleProvider.keygen(new Uint8Array(32).fill(200));

/** The fixture validator (chain:v0.node) and three others of equal power: a set where its key is a quarter of the power. */
export function fourEqualValidators(): ValidatorSet {
  return new ValidatorSet([
    { address: 'chain:v0.node', public_key: toHex(VALIDATOR_KEY.publicKey), power: 10n },
    ...[1, 2, 3].map((i) => ({ address: `chain:v${i}.node`, public_key: toHex(nobleProvider.keygen(new Uint8Array(32).fill(90 + i)).publicKey), power: 10n })),
  ]);
}

/** A genesis validator of a fixture chain: its `.node`, the key that signs its join statement, its stake. */
export type GenesisValidator = TestGenesisValidator;

export function genesisDoc(accounts: Array<{ address: string; balance: bigint }>, params: Record<string, string> = {}, validators?: readonly GenesisValidator[]): GenesisDoc {
  return testGenesis({ chainId: FIXTURE_CHAIN_ID, validators: validators ?? [{ address: 'chain:v0.node', key: VALIDATOR_KEY, stake: '10000000000' }], accounts, params });
}

export interface Fixture {
  chain: Chain;
  operations: OperationRegistry;
  hooks: Hooks;
  host: PluginHost<unknown>;
  kv: KvStore;
  params: ParamRegistry;
  /** An account as committed state has it (balance, nonce, bound key). */
  account(address: string): Promise<AccountRecord>;
  /** A plugin's namespace of committed state, read-only (for its declared stores' `get`/`scan`). */
  pluginState(namespace: string): ReadonlyStore;
  /**
   * The chain's check of evidence in another's proposal (the consensus layer's, which a fixture
   * lacks): none verifies until a test sets it.
   */
  evidenceVerifier: EvidenceVerifier;
  /** Closes the chain's store (and its text log). */
  close(): Promise<void>;
  /** Proposes, validates and commits one block at the given time. */
  block(timestamp?: number): Promise<import('../../kernel/model/types.js').BlockRecord>;
}

let clock = 1_700_000_001_000;

/** A chain over an in-memory store with the given plugins, genesis already written. */
export async function makeChain(opts: { plugins?: PluginDefinition<any, any>[]; pluginConfig?: Array<{ name: string; activation_height?: number; options?: Record<string, unknown> }>; accounts?: Array<{ address: string; balance: bigint }>; env?: 'mainnet' | 'testnet'; kv?: KvStore; textLog?: TxTextLog; stateCacheEntries?: number; services?: unknown; genesisParams?: Record<string, string>; validators?: readonly GenesisValidator[]; verifier?: SignatureVerifier; mempool?: { maxTxs: number; maxPerSender: number }; requireTxV3?: boolean; shard?: { id: number; count: number }; accountRanges?: GenesisDoc['account_ranges']; genesis?: GenesisDoc } = {}): Promise<Fixture> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const plugins = opts.plugins ?? [];
  const config = validateConfig({ network: 'unit', env: opts.env ?? 'testnet', plugins: (opts.pluginConfig ?? plugins.map((p) => ({ name: p.name }))).map((p) => ({ enabled: true, activation_height: 0, options: {}, ...p })) });
  const hooks = createHooks();
  const params = new ParamRegistry();
  for (const p of KERNEL_PARAMS) params.declare('kernel', p);
  const log = pino({ level: 'silent' });
  const services: { chain?: Chain; query?: QueryService } = (opts.services as { chain?: Chain; query?: QueryService }) ?? {};
  const operations = new OperationRegistry();
  const host = new PluginHost<unknown>({ config, hooks, catalogue: new Map(plugins.map((p) => [p.name, p])), params, log, metrics: new Registry(), services, profile: 'node', operations });
  const kv = opts.kv ?? new MemoryStore();
  const store = new ChainStore(kv, { ...(opts.textLog ? { textLog: opts.textLog } : {}), ...(opts.stateCacheEntries !== undefined ? { stateEntries: opts.stateCacheEntries } : {}) });
  // No consensus engine: no evidence verifies until a test sets `evidenceVerifier`.
  const evidence: { verifier: EvidenceVerifier } = { verifier: async () => null };
  const chain = new Chain({ store, hooks, host, params, verifier: opts.verifier ?? new CachingVerifier(nobleProvider), evidenceVerifier: (raw, signer) => evidence.verifier(raw, signer), log, env: config.env, chainId: FIXTURE_CHAIN_ID, shard: opts.shard?.id ?? 0, nShards: opts.shard?.count ?? 1, requireTxV3: opts.requireTxV3 ?? false, mempool: opts.mempool ?? { maxTxs: 1000, maxPerSender: 64 }, paramOverrides: {}, operations });
  services.chain = chain;
  // Routes read committed state through the query service, as on a node.
  services.query ??= new QueryService({ get state() { return store.state; }, height: () => chain.head.height }, hooks, { env: config.env, params, boundary: host.boundary, shards: chain.shards });
  await host.boot();
  // A whole network's document (a sharded one, decisions.md §71) when given; else the fixture's.
  const doc = opts.genesis ?? genesisDoc(opts.accounts ?? [], opts.genesisParams, opts.validators);
  await chain.open(opts.accountRanges ? { ...doc, account_ranges: opts.accountRanges } : doc);
  return {
    chain,
    operations,
    hooks,
    host,
    kv,
    params,
    account: (address) => accountsReader(store.state).get(address),
    pluginState: (namespace) => readonlyStore(store.state, namespace),
    get evidenceVerifier() {
      return evidence.verifier;
    },
    set evidenceVerifier(verifier: EvidenceVerifier) {
      evidence.verifier = verifier;
    },
    close: () => store.close(),
    async block(timestamp?: number) {
      clock += 1000;
      const p = await chain.propose(0, 'chain:v0.node', timestamp ?? clock);
      const reason = await chain.validate(p);
      if (reason) throw new Error(`own proposal invalid: ${reason}`);
      return chain.finalize(p);
    },
  };
}

/**
 * One block proposed, validated and committed with the fixture validator's precommit as its
 * certificate (a proven read of the state before it needs it, decisions.md §84).
 */
export async function certifiedBlock(f: Fixture): Promise<number> {
  clock += 1000;
  const p = await f.chain.propose(0, 'chain:v0.node', clock);
  assert.equal(await f.chain.validate(p), null);
  const blockHash = parseHex(p.hash, 32)!;
  const vote = signVote(nobleProvider, VALIDATOR_KEY.secretKey, FIXTURE_CHAIN_ID, { type: 'precommit', height: p.header.height, round: 0, blockHash, validator: 'chain:v0.node' });
  await f.chain.finalize(p, decidedCommit({ height: p.header.height, round: 0, blockHash, precommits: [vote] }));
  return p.header.height;
}

/** The status a call answers: 200 when it resolves, else its ChainError's. */
export async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    assert.ok(isChainError(e), String(e));
    return e.status;
  }
}

/** Awaits a refusal: a ChainError with this status and a message matching `pattern`. */
export async function refused(p: Promise<unknown>, status: number, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isChainError(e), String(e));
    assert.equal(e.status, status, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}
