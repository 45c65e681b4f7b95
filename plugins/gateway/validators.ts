import { ChainError } from '../../kernel/sdk.js';
import { isObject, resultOf } from './node-client.js';
import type { NodeReads } from './node-reads.js';

/** Part 1's validator list; the node serves it from its own count of blocks and precommits. */
export const VALIDATORS_PATH = '/api/v1/validators';

/** The node's page size cap for the list (decisions.md §20). */
const PAGE = 100;

export interface ValidatorList {
  /** The node's answer for the first page as it came (what REST without a query returns). */
  readonly body: Readonly<Record<string, unknown>>;
  /** Every validator of the active set, all pages of one height. */
  readonly validators: readonly Record<string, unknown>[];
}

function page(body: unknown, path: string): Record<string, unknown> & { validators: unknown[] } {
  if (!isObject(body) || !Array.isArray(body.validators)) throw new ChainError(502, `the node answered ${path} without a validators list`);
  return body as Record<string, unknown> & { validators: unknown[] };
}

/**
 * The whole active set, through the same cache as the REST proxy, so `get_validator`,
 * `validator_update` and GET /api/v1/validators agree. The list is paged (§20, at most 100 a
 * page, and the set may hold up to 150): the pages are read until `has_more` is false, and read
 * again when a block committed between two pages (their `height` differs). A node error is
 * thrown with the node's status and message; the gateway derives nothing itself.
 */
export async function fetchValidators(reads: NodeReads): Promise<ValidatorList> {
  for (let attempt = 1; ; attempt++) {
    const first = page(resultOf(await reads.get(VALIDATORS_PATH)), VALIDATORS_PATH);
    const validators = first.validators.filter(isObject);
    let more = first.has_more === true;
    let sameHeight = true;
    while (more && validators.length < 10_000) {
      const path = `${VALIDATORS_PATH}?limit=${PAGE}&offset=${validators.length}`;
      const next = page(resultOf(await reads.get(path)), path);
      if (next.height !== first.height) {
        sameHeight = false;
        break;
      }
      const rows = next.validators.filter(isObject);
      validators.push(...rows);
      more = next.has_more === true && rows.length > 0;
    }
    if (sameHeight || attempt >= 3) return { body: first, validators };
  }
}
