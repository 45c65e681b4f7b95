import { ChainError } from '../errors.js';
import { addressKind } from './address.js';
import { sha3Hex0x } from './hash.js';
import { shardOf } from './fnv.js';

/**
 * The shard a node serves, and the ownership rule of decisions.md §71: a `.human`, `.node`,
 * `.app`, `.vault` or `.agent` address belongs to shard FNV-1a(address) mod n_shards; every shard
 * serves `chain:system.*`, `chain:models.registry` and `chain:ibc.*`. Bound to the genesis (the
 * chain records it in state at genesis, chain.ts), so every validator of a shard answers alike and
 * a plugin may judge by it in consensus. A one-shard network owns everything.
 */
export interface ShardView {
  /** The shard this node serves (`CHAIN_SHARD_ID`, 0 unsharded). */
  readonly id: number;
  /** `n_shards` of the genesis (1 unsharded). */
  readonly count: number;
  /** The shard that owns `address`: its FNV-1a shard for an ownable kind, this shard for the addresses every shard serves. */
  shardOf(address: string): number;
  /** Whether this shard owns `address` (always, on a one-shard network). */
  owns(address: string): boolean;
}

const OWNABLE = new Set(['human', 'node', 'app', 'vault', 'agent']);

/** Whether an address is one of the kinds a single shard owns (§71): not a system or escrow address, not malformed text. */
export function isShardOwned(address: string): boolean {
  const kind = addressKind(address);
  return kind !== null && OWNABLE.has(kind);
}

export function shardView(id: number, count: number): ShardView {
  if (!Number.isInteger(count) || count < 1) throw new Error(`n_shards must be a positive integer, got ${count}`);
  if (!Number.isInteger(id) || id < 0 || id >= count) throw new Error(`shard ${id} is not below n_shards ${count}`);
  const of = (address: string): number => (count === 1 || !isShardOwned(address) ? id : shardOf(address, count));
  return Object.freeze({ id, count, shardOf: of, owns: (address: string) => of(address) === id });
}

/** The view of a one-shard network (decisions.md §13): every address is this shard's. */
export const ONE_SHARD: ShardView = shardView(0, 1);

/**
 * decisions.md §73: a transaction, operation or faucet request whose sender (`from`, the §6 actor,
 * the faucet `address`) another shard owns: 400 naming that shard, with `shard` (integer). `role`
 * names the field, so the refusal says which address was judged.
 */
export function foreignSenderError(view: ShardView, role: string, address: string): ChainError {
  const owner = view.shardOf(address);
  return new ChainError(400, `${role} ${address} belongs to shard ${owner}; this node serves shard ${view.id} of ${view.count}`, 'send it to a node of that shard, or through the gateway, which routes by sender', { shard: owner });
}

/**
 * The target a plain transfer to another shard's address dispatches to (decisions.md §74): the
 * handler of the plugin that declares `crossShardTransfers` (it locks the value).
 */
export const CROSS_SHARD_TARGET = 'cross_shard_transfer';

/**
 * decisions.md §74: a plain transfer whose `to` another shard owns is a cross-shard transfer. A
 * network without a plugin serving them (no lock, no proof, no relay) refuses it: 400 with
 * `shard`, at admission and in the block, rather than a credit here to an address that can never
 * spend it on this shard.
 */
export function foreignRecipientError(view: ShardView, address: string): ChainError {
  const owner = view.shardOf(address);
  return new ChainError(400, `to ${address} belongs to shard ${owner}; this node serves shard ${view.id}, and no cross-shard transfer plugin is enabled on this network`, 'send to an address of the same shard', { shard: owner });
}

/**
 * decisions.md §71, §73: a record (a name, `.node`, `.vault`, `.agent`) is created or acted on only
 * on the shard that owns its address; another shard's is 400 naming that shard, with `shard`.
 */
export function foreignRecordError(view: ShardView, address: string): ChainError {
  const owner = view.shardOf(address);
  return new ChainError(400, `${address} belongs to shard ${owner}; this node serves shard ${view.id}: a record lives only on the shard that owns its address`, 'register it (or act on it) through a node of that shard', { shard: owner });
}

/** decisions.md §73: a read naming an address another shard owns is 404 with `shard`. */
export function foreignReadError(view: ShardView, address: string): ChainError {
  const owner = view.shardOf(address);
  return new ChainError(404, `${address} belongs to shard ${owner}; this node serves shard ${view.id}`, 'ask a node of that shard, or the gateway, which routes by address', { shard: owner });
}

/** decisions.md §27: a contract's address on a one-shard network, and the base of the k-rule. */
function appAddress(owner: string, deployTxHash: string, k: number): string {
  return `chain:${sha3Hex0x(`ch-app|${owner}|${deployTxHash}${k === 0 ? '' : `|${k}`}`).slice(2, 12)}.app`;
}

/**
 * decisions.md §27, §71: the address of a contract `owner` deploys in transaction `deployTxHash`:
 * §27's when the deployer's shard (this one) owns it, else the first 10 hex of
 * SHA3-256(`ch-app|<owner>|<hash>|<k>`) for the least k ≥ 1 this shard owns. A one-shard network
 * never uses k. Terminates: each k lands on this shard with probability 1/n_shards.
 */
export function contractAddressOn(view: ShardView, owner: string, deployTxHash: string): string {
  for (let k = 0; ; k++) {
    const address = appAddress(owner, deployTxHash, k);
    if (view.owns(address)) return address;
  }
}

/**
 * What the P2P hello pins for a shard's chain (kernel/p2p/tcp/PROTOCOL.md): the genesis hash on a
 * one-shard network; in a sharded one `0x` SHA3-256(`ch-shard-chain-v1|<genesis hash>|<shard>`),
 * so the shards of one genesis never peer with each other's validators.
 */
export function shardChainHash(genesisHash: string, view: ShardView): string {
  return view.count === 1 ? genesisHash : sha3Hex0x(`ch-shard-chain-v1|${genesisHash}|${view.id}`);
}
