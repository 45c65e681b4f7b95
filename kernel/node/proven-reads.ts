import type { Chain } from '../chain/chain.js';
import { StaleRead } from '../chain/past-state.js';
import { validatorSetHash } from '../chain/block-hash.js';
import { toHex0x } from '../codec/hex.js';
import { notFound, unavailable } from '../errors.js';
import { ACCOUNTS_NAMESPACE, ACCOUNT_KEYS_NAMESPACE } from '../state/accounts.js';
import { checkAnswerFields, isLightClientError, provenEntryOf, sortValidators, validatorsToJson } from '../light-client/index.js';
import { proveParam } from '../host/declared-route.js';
import type { QueryService } from './queries.js';
import type { RouteEntry, RpcHandler, RpcRequest } from '../host/route-table.js';

/*
 * Proven reads (decisions.md §84): a route declared with `proves` answers `?prove=true` with its
 * usual fields read at height h = head − 1 plus `proof` (`height`, `state_root`, `entries`,
 * `header`, `certificate`, `validators`), which a client checks against the validators' keys
 * alone (kernel/light-client, §85). One mechanism for every route: the handler is the route's
 * own, run with its queries pinned to h.
 */

/** The full state key of an account's record (`acct/<address>`), for a proven read's declaration. */
export function accountStateKey(address: string): string {
  return `${ACCOUNTS_NAMESPACE}/${address}`;
}

/** The full state key of an account's main keys (`acctkey/<address>`: one bound key, or a key set). */
export function accountKeysStateKey(address: string): string {
  return `${ACCOUNT_KEYS_NAMESPACE}/${address}`;
}

/** The full state key of a plugin's record: `<namespace>/<key>` (what `ctx.store` reads as `key`). */
export function stateKey(namespace: string, key: string): string {
  return `${namespace}/${key}`;
}

/** What `GET /api/v1/blocks/:height/commit` answers, and a proven read's proof carries. */
export interface CommitView {
  readonly height: number;
  readonly header: unknown;
  readonly certificate: unknown;
  readonly validators: unknown;
}

const decoder = new TextDecoder();
const ATTEMPTS = 3;

/** §84's proof object: the state keys' entries at `height` = head − 1 and the certified header that carries its root. */
export interface StateKeysProof {
  readonly height: number;
  readonly state_root: string;
  readonly entries: ReadonlyArray<{ key: string; exists: boolean; value_hex: string | null; proof: unknown }>;
  readonly header: unknown;
  readonly certificate: unknown;
  readonly validators: unknown;
}

/**
 * The proof object of decisions.md §84 for `keys` at head − 1, without an answer around it (a
 * cross-shard bundle's `proof`, §75). Entries are read from the state tree at that height's root,
 * which never changes, so a commit meanwhile cannot make them stale.
 */
export async function proveStateKeys(chain: Chain, keys: readonly string[]): Promise<StateKeysProof> {
  const view = await chain.queries.pastState();
  const entries = await Promise.all(keys.map((k) => chain.queries.provenEntry(view, k)));
  const commit = await new ProvenReads(chain).commitAt(view.height + 1);
  return { height: view.height, state_root: toHex0x(view.root), entries, header: commit.header, certificate: commit.certificate, validators: commit.validators };
}

export class ProvenReads {
  constructor(
    private readonly chain: Chain,
    private readonly query?: QueryService,
  ) {}

  /**
   * A committed block's header, its stored commit certificate and the set that decided it
   * (§84). 404 above the tip, and where the node no longer holds the certificate or the set
   * (a set older than its validator history: never a set that does not hash to the header's).
   */
  async commitAt(height: number): Promise<CommitView> {
    const store = this.chain.queries;
    if (height > this.chain.head.height) throw notFound(`block ${height} is above the tip ${this.chain.head.height}`);
    const block = await store.getBlock(height);
    if (!block) throw notFound(`block ${height} not found`);
    const raw = await store.getCommit(height);
    if (!raw) throw notFound(`this node holds no commit certificate for block ${height}`);
    const set = sortValidators(await this.chain.queries.validatorSetAt(height));
    if (validatorSetHash(set) !== block.header.validators_hash) throw notFound(`this node no longer holds the validator set of block ${height}`);
    return { height, header: block.header, certificate: JSON.parse(decoder.decode(raw)) as unknown, validators: validatorsToJson(set) };
  }

  /** The handler a route is served with: its own, or, for a proven read, one that takes `prove`. */
  handlerOf = (entry: RouteEntry): RpcHandler => {
    const proven = entry.proven;
    if (!proven) return entry.handler;
    return (req: RpcRequest) => (proveParam(req.query) ? this.answer(entry, proven.keys, req) : entry.handler(req));
  };

  private async answer(entry: RouteEntry, keysOf: (req: RpcRequest, answer: Readonly<Record<string, unknown>>) => readonly string[], req: RpcRequest): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt++) {
      const view = await this.chain.queries.pastState();
      try {
        if (this.query === undefined) throw new Error('proven reads of routes need the query service');
        // What the handler read through `provingReads` (a name's record) comes first: it was read first.
        const also = new Set<string>();
        const result = await this.query.pinnedTo(view, view.height, () => entry.handler(req), also);
        if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new Error(`${entry.path}: a proven read must answer a record`);
        const keys = [...new Set([...also, ...keysOf(req, result as Record<string, unknown>)])];
        const unread = keys.filter((k) => !view.keysRead.has(k));
        // A declaration that drifted from what the handler reads would prove the wrong bytes.
        if (unread.length > 0) throw new Error(`${entry.path} declares ${unread.join(', ')} as proven but its handler did not read them`);
        const entries = await Promise.all(keys.map((k) => this.chain.queries.provenEntry(view, k)));
        const answer = result as Record<string, unknown>;
        try {
          checkAnswerFields(answer, entries.map((e) => provenEntryOf(e.key, e.value_hex === null ? null : Buffer.from(e.value_hex, 'hex'))), 'record');
        } catch (e) {
          // The node would serve what an honest client refuses: a route whose fields share a name with the record but not its value.
          if (isLightClientError(e)) throw new Error(`${entry.path}: ${e.message}`);
          throw e;
        }
        const commit = await this.commitAt(view.height + 1);
        return { ...answer, proof: { height: view.height, state_root: toHex0x(view.root), entries, header: commit.header, certificate: commit.certificate, validators: commit.validators } };
      } catch (e) {
        if (!(e instanceof StaleRead)) throw e;
        if (attempt === ATTEMPTS) throw unavailable('blocks were committed faster than the proven read could be served', 'retry');
      }
    }
  }
}
