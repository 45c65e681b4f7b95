import { isObject } from './node-client.js';
import type { NodeReads } from './node-reads.js';

export interface ValidatorList {
  readonly nodes: readonly Record<string, unknown>[];
  readonly total_staked: bigint;
}

/**
 * Validators with their stake, from the node. `/api/v1/validators` is the spec's endpoint; a node
 * build that does not serve it yet still lists the active set with its voting power in
 * `/api/v1/status`, and voting power is self-stake (part 1, Consensus 2), so that list is used.
 */
export async function fetchValidators(reads: NodeReads): Promise<ValidatorList> {
  const primary = await reads.get('/api/v1/validators');
  let nodes: Record<string, unknown>[] = [];
  if (primary.status === 200) nodes = listOf(primary.body, 'validators');
  else {
    const status = await reads.get('/api/v1/status');
    if (status.status === 200) nodes = listOf(status.body, 'validators').map((v) => ({ ...v, stake: v.stake ?? v.power }));
  }
  let total = 0n;
  for (const v of nodes) total += toBigInt(v.stake ?? v.power);
  return { nodes, total_staked: total };
}

function listOf(body: unknown, key: string): Record<string, unknown>[] {
  const raw = Array.isArray(body) ? body : isObject(body) && Array.isArray(body[key]) ? (body[key] as unknown[]) : [];
  return raw.filter(isObject);
}

function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  return 0n;
}
