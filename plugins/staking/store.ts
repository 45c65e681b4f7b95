import { jsonRecord, type ReadonlyStore, type Store } from '../../kernel/sdk.js';

/**
 * The staking plugin's records, all in its own namespace, keyed so that scans come back in a
 * deterministic (key) order:
 *   stake/<address>                      a self-stake
 *   delegation/<validator>/<delegator>   a delegation
 *   node/<address>                       a registered (or genesis) `.node`
 */
export interface StakeRecord {
  amount: bigint;
  /** Height of the last addition + unbonding_blocks (decisions.md §33). */
  unlock_height: number;
  /** The height rewards were last paid up to (the bonding height before the first payout, §37). */
  paid_to: number;
  /** A genesis validator's self-stake earns genesis_apy_bps (part 1, Staking 5). */
  genesis: boolean;
  /**
   * Height the stake was first bonded (0 at genesis); additions keep it, an unstake ends the
   * record. Governance lets an address vote only on proposals created after it (part 1,
   * Governance 4). Records written before this field existed read as 0.
   */
  bonded_height?: number;
  /**
   * Height of the last addition (the first bond included): stake added at or after a proposal's
   * creation cannot vote on it (part 1, Governance 4), even when the address was bonded before.
   * Records written before this field existed read as their bonded_height.
   */
  added_height?: number;
}

export interface DelegationRecord {
  amount: bigint;
  unlock_height: number;
  paid_to: number;
}

export interface NodeRecord {
  address: string;
  owner: string;
  /** Hex ML-DSA-65 consensus key; empty until one is set (a node joins the set only with one). */
  consensus_public_key: string;
  commission_bps: bigint;
  description: string;
  website: string;
  p2p_endpoint: string;
  rpc_endpoint: string;
  registered_height: number;
  jailed_until: number;
}

const stakeCodec = jsonRecord<StakeRecord>();
const delegationCodec = jsonRecord<DelegationRecord>();
const nodeCodec = jsonRecord<NodeRecord>();

export const stakeKey = (address: string): string => `stake/${address}`;
export const delegationKey = (validator: string, delegator: string): string => `delegation/${validator}/${delegator}`;
export const nodeKey = (address: string): string => `node/${address}`;

export const readStake = (s: ReadonlyStore, address: string): Promise<StakeRecord | undefined> => s.getRecord(stakeKey(address), stakeCodec);
export const writeStake = (s: Store, address: string, r: StakeRecord): void => s.setRecord(stakeKey(address), r, stakeCodec);
export const readDelegation = (s: ReadonlyStore, validator: string, delegator: string): Promise<DelegationRecord | undefined> => s.getRecord(delegationKey(validator, delegator), delegationCodec);
export const writeDelegation = (s: Store, validator: string, delegator: string, r: DelegationRecord): void => s.setRecord(delegationKey(validator, delegator), r, delegationCodec);
export const readNode = (s: ReadonlyStore, address: string): Promise<NodeRecord | undefined> => s.getRecord(nodeKey(address), nodeCodec);
export const writeNode = (s: Store, r: NodeRecord): void => s.setRecord(nodeKey(r.address), r, nodeCodec);

/** Every delegation to `validator`, by delegator (key order). */
export async function delegationsTo(s: ReadonlyStore, validator: string): Promise<Array<{ delegator: string; record: DelegationRecord }>> {
  const prefix = `delegation/${validator}/`;
  return (await s.scan(prefix)).map(([k, v]) => ({ delegator: k.slice(prefix.length), record: delegationCodec.decode(v) }));
}

/** Every delegation, with validator and delegator (key order). */
export async function allDelegations(s: ReadonlyStore): Promise<Array<{ validator: string; delegator: string; record: DelegationRecord }>> {
  return (await s.scan('delegation/')).map(([k, v]) => {
    const [, validator, delegator] = k.split('/') as [string, string, string];
    return { validator, delegator, record: delegationCodec.decode(v) };
  });
}

export async function allStakes(s: ReadonlyStore): Promise<Array<{ address: string; record: StakeRecord }>> {
  return (await s.scan('stake/')).map(([k, v]) => ({ address: k.slice('stake/'.length), record: stakeCodec.decode(v) }));
}

export async function allNodes(s: ReadonlyStore): Promise<NodeRecord[]> {
  return (await s.scan('node/')).map(([, v]) => nodeCodec.decode(v));
}
