import { ChainError } from '../../kernel/sdk.js';
import { isObject, resultOf } from './node-client.js';
import type { NodeReads } from './node-reads.js';

/** Part 1's validator list; the node serves it from its own count of blocks and precommits. */
export const VALIDATORS_PATH = '/api/v1/validators';

export interface ValidatorList {
  /** The node's answer as it came (what REST and `get_validators` return). */
  readonly body: Readonly<Record<string, unknown>>;
  readonly validators: readonly Record<string, unknown>[];
}

/**
 * The node's validator list, through the same cache as the REST proxy, so `get_validators`,
 * `get_validator`, `validator_update` and GET /api/v1/validators agree. A node error is thrown
 * with the node's status and message; the gateway derives nothing itself.
 */
export async function fetchValidators(reads: NodeReads): Promise<ValidatorList> {
  const body = resultOf(await reads.get(VALIDATORS_PATH));
  if (!isObject(body) || !Array.isArray(body.validators)) throw new ChainError(502, `the node answered ${VALIDATORS_PATH} without a validators list`);
  return { body, validators: body.validators.filter(isObject) };
}
