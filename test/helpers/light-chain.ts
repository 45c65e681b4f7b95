import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { canonicalJson } from '../../kernel/codec/json.js';
import { toHex, toHex0x } from '../../kernel/codec/hex.js';
import { utf8Bytes } from '../../kernel/codec/utf8.js';
import { sha3Hex0x } from '../../kernel/crypto/hash.js';
import { WriteBatch } from '../../kernel/state/kv.js';
import { EMPTY_ROOT, StateTree } from '../../kernel/state/tree/index.js';
import { MemoryKv } from '../../kernel/state/tree/memory-kv.js';
import { precommitMessage, sortValidators, validatorsHash, validatorsToJson, type LightValidator } from '../../kernel/light-client/index.js';

/*
 * A chain a light client can be tested and benchmarked against without processes: real ML-DSA-65
 * keys, real state-tree proofs, headers hashed and precommits signed as the node does, so each
 * test can lie in exactly one place.
 */

export interface TestSigner extends LightValidator {
  readonly secretKey: Uint8Array;
}

/** Validators `chain:v<i>.node` from seeds `i + seedBase` (32 bytes each), with the given powers. */
export function makeSigners(powers: readonly number[], seedBase = 1, prefix = 'v'): TestSigner[] {
  return powers.map((p, i) => {
    const seed = new Uint8Array(32).fill((i + seedBase) % 256);
    const keys = nobleProvider.keygen(seed);
    return { address: `chain:${prefix}${i}.node`, public_key: toHex(keys.publicKey), power: BigInt(p), secretKey: keys.secretKey };
  });
}

/** The set as served: canonical order, JSON powers. */
export function served(set: readonly LightValidator[]): unknown {
  return validatorsToJson(sortValidators(set.map((v) => ({ address: v.address, public_key: v.public_key, power: v.power }))));
}

/** A state tree holding `records` (key → UTF-8 text); its root and a prover. */
export async function stateOf(records: Readonly<Record<string, string>>): Promise<{ root: string; entry: (key: string) => Promise<Record<string, unknown>> }> {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const batch = new WriteBatch();
  const rootBytes = await tree.update(
    EMPTY_ROOT,
    Object.entries(records).map(([k, v]) => [utf8Bytes(k), utf8Bytes(v)] as const),
    batch,
  );
  kv.apply(batch);
  tree.releasePending();
  return {
    root: toHex0x(rootBytes),
    async entry(key: string) {
      const value = await tree.get(rootBytes, utf8Bytes(key));
      return { key, exists: value !== undefined, value_hex: value === undefined ? null : toHex(value), proof: await tree.prove(rootBytes, utf8Bytes(key)) };
    },
  };
}

export interface HeaderInput {
  readonly chainId: string;
  readonly height: number;
  readonly prevStateRoot: string;
  readonly validators: readonly LightValidator[];
  readonly next?: readonly LightValidator[];
}

/** A header with every field the node hashes. */
export function headerOf(h: HeaderInput): Record<string, unknown> {
  const zero = '0x' + '00'.repeat(32);
  return {
    chain_id: h.chainId,
    height: h.height,
    round: 0,
    parent_hash: sha3Hex0x(`parent-${h.height}`),
    proposer: h.validators[0]!.address,
    timestamp: 1_700_000_000_000 + h.height * 1000,
    tx_root: zero,
    tx_count: 0,
    prev_state_root: h.prevStateRoot,
    base_fee: 1,
    shard: 0,
    evidence_hash: sha3Hex0x('[]'),
    validators_hash: validatorsHash(sortValidators(h.validators)),
    next_validators_hash: validatorsHash(sortValidators(h.next ?? h.validators)),
  };
}

/** A certificate of `header` carrying the precommits of `signers`, in address order. */
export function certify(header: Record<string, unknown>, signers: readonly TestSigner[], chainId = header['chain_id'] as string): Record<string, unknown> {
  const blockHash = sha3Hex0x(canonicalJson(header));
  const height = header['height'] as number;
  const precommits = sortValidators(signers).map((s) => ({
    type: 'precommit',
    height,
    round: 0,
    block_hash: blockHash,
    validator: s.address,
    signature: toHex(nobleProvider.sign(utf8Bytes(precommitMessage(chainId, height, 0, blockHash, s.address)), s.secretKey)),
  }));
  return { height, round: 0, block_hash: blockHash, precommits };
}

/** An honest proven account read at state height `height` of `chainId`, decided by `set` and signed by `signers`. */
export async function provenAccount(o: { chainId: string; height: number; set: readonly TestSigner[]; signers?: readonly TestSigner[]; balance?: number; nonce?: number; txCount?: number; next?: readonly TestSigner[] }): Promise<Record<string, unknown>> {
  const address = 'chain:0123456789abcde.human';
  const balance = o.balance ?? 5_000_000;
  const nonce = o.nonce ?? 3;
  const txCount = o.txCount ?? 4;
  const state = await stateOf({
    [`acct/${address}`]: JSON.stringify({ balance, nonce, tx_count: txCount }),
    'acct/chain:fffffffffffffff.human': JSON.stringify({ balance: 1, nonce: 0, tx_count: 0 }),
    'staking/node/chain:v0.node': JSON.stringify({ address: 'chain:v0.node', jailed_until: 0 }),
  });
  const header = headerOf({ chainId: o.chainId, height: o.height + 1, prevStateRoot: state.root, validators: o.set, ...(o.next ? { next: o.next } : {}) });
  return {
    address,
    balance,
    balance_human: `${balance / 1e6} COIN`,
    nonce,
    tx_count: txCount,
    proof: {
      height: o.height,
      state_root: state.root,
      entries: [await state.entry(`acct/${address}`)],
      header,
      certificate: certify(header, o.signers ?? o.set),
      validators: served(o.set),
    },
  };
}
