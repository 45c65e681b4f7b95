import { toHex } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { deriveAddress } from '../crypto/address.js';
import { nodeIdOf } from '../crypto/node-id.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import { formatPeerEndpoint } from '../p2p/endpoint.js';
import type { GenesisValidator, JoinStatement } from './genesis.js';

export const GENESIS_JOIN_TAG = 'ch-genesis-join-v1';

/**
 * The text a join statement's `signature` (consensus key) and `owner_signature` (owner key) cover
 * (decisions.md §82): `ch-genesis-join-v1|<chain_id>|<address>|<public_key>|<owner>|<stake>|<p2p_endpoint>`.
 * Signing it with the consensus key proves the validator holds that key; naming the chain keeps a
 * statement from being replayed into another network's genesis.
 */
export function genesisJoinMessage(chainId: string, v: Pick<GenesisValidator, 'address' | 'public_key' | 'owner' | 'stake' | 'p2p_endpoint'>): Uint8Array {
  return utf8Bytes([GENESIS_JOIN_TAG, chainId, v.address, v.public_key, v.owner, v.stake, v.p2p_endpoint].join('|'));
}

export interface JoinInput {
  readonly chainId: string;
  /** The validator's `chain:<label>.node`. */
  readonly address: string;
  /** The consensus key: it signs blocks, and this statement. */
  readonly key: KeyPair;
  readonly stake: bigint;
  /** `<host>:<port>` other validators dial; the statement names it with the key's node id. */
  readonly p2pExternal: string;
  /** Another key that owns the node; the consensus key's own `.human` owns it when absent (§19). */
  readonly ownerKey?: KeyPair;
}

/** A signed join statement: what `chain genesis join` writes to `<home>/config/join.json`. */
export function signJoin(input: JoinInput, provider: Pick<SignatureProvider, 'sign'>): JoinStatement {
  const ownerKey = input.ownerKey ?? input.key;
  const fields = {
    address: input.address,
    public_key: toHex(input.key.publicKey),
    owner: deriveAddress(ownerKey.publicKey),
    stake: input.stake.toString(10),
    p2p_endpoint: formatPeerEndpoint(nodeIdOf(input.key.publicKey), input.p2pExternal),
  };
  const message = genesisJoinMessage(input.chainId, fields);
  return {
    chain_id: input.chainId,
    ...fields,
    signature: toHex(provider.sign(message, input.key.secretKey)),
    ...(input.ownerKey ? { owner_public_key: toHex(input.ownerKey.publicKey), owner_signature: toHex(provider.sign(message, input.ownerKey.secretKey)) } : {}),
  };
}

/** The genesis entry of a statement: the statement without its `chain_id` (the genesis names the chain once). */
export function genesisValidatorOf(join: JoinStatement): GenesisValidator {
  const { chain_id: _chainId, ...validator } = join;
  return validator;
}
