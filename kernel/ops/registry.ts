import { Value } from '@sinclair/typebox/value';
import type { TObject } from '@sinclair/typebox';
import { badRequest, unauthorized } from '../errors.js';
import { wireAmount } from '../codec/amount.js';
import { deriveAddress, isAddress } from '../crypto/address.js';
import { parseHex } from '../codec/hex.js';
import { COIN_UNIT, type OperationSpec } from './operation.js';
import { withMainKeyOnly } from './main-key-only.js';
import { GAS_LIMIT_FIELD, parseGasLimit } from '../tx/gas-limit.js';
import type { SigningFields } from '../tx/signing.js';
import { operationRouteGroups, selectOperation, type OperationRouteGroup } from './route-dispatch.js';
import { ACTOR_FIELDS, actorFieldOf, signsForOf, valueFieldOf } from './fields.js';

export { ACTOR_FIELDS, VALUE_FIELDS } from './fields.js';
/** Fields of an operation's transaction body that the kernel owns: the envelope and the signed fields. */
export const OP_FIELD = '_op';
export const PATH_FIELD = '_path';
const SIGNED_FIELDS = new Set(['signature', 'public_key', 'nonce', 'gas_price', GAS_LIMIT_FIELD]);
const NAME_RE = /^[a-z][a-z0-9_]{0,47}$/;
/** The least operation nonce: 10^12 ms, September 2001. */
export const MIN_OPERATION_NONCE = 1_000_000_000_000n;

export interface RegisteredOperation {
  readonly spec: OperationSpec<TObject>;
  readonly plugin: string;
  readonly actorField: string;
  readonly valueField: string | null;
}

/** An operation read from its transaction body: what admission, the signature and the handlers need. */
export interface ParsedOperation extends Omit<SigningFields, 'kind' | 'payloadHash'> {
  readonly op: RegisteredOperation;
  /** The body as the handlers see it: the client's fields and the path's, without the signed fields. */
  readonly body: Record<string, unknown>;
  /** The body as the client sent it (what `ch-tx-v3`/`v4` and a second signature cover). */
  readonly clientBody: Record<string, unknown>;
  readonly signature: string;
  readonly publicKey: string;
  readonly secondSignature: string | undefined;
  /** Fields of `pathFields` that came from the path only, not also from the body (ch-tx-v3/v4 do not cover them). */
  readonly pathOnly: readonly string[];
  /**
   * Fields of `uncoveredPathFields` that came from the path only: a ch-tx-v3/v4 payload is the
   * body as sent, without them, but a client that signed them (a socket method whose param is the
   * path's) is heard too (ops/signature.ts).
   */
  readonly pathUncovered: readonly string[];
  /** Fields of `signing.resolve` the client left out: filled from state, covered only by the own layout. */
  readonly unresolved: readonly string[];
  /**
   * The ucoin of the signed value held against the signing account's coin balance: the value when
   * the operation's `valueUnit` is `ucoin` (the default), else 0 (units of an asset, coins of a
   * balance the plugin keeps). The transaction's `value`.
   */
  readonly coinValue: bigint;
}

/**
 * Every operation the enabled plugins declare, by name. Filled while the host boots; the kernel
 * serves routes, parses submissions and dispatches execution from it.
 */
export class OperationRegistry {
  private readonly byName = new Map<string, RegisteredOperation>();
  private groups: OperationRouteGroup<RegisteredOperation>[] | undefined;

  add(plugin: string, spec: OperationSpec<TObject>): void {
    if (!NAME_RE.test(spec.name)) throw new Error(`operation "${spec.name}" of ${plugin}: names are snake_case`);
    const prev = this.byName.get(spec.name);
    if (prev) throw new Error(`operation "${spec.name}" is declared by both ${prev.plugin} and ${plugin}`);
    if (!Number.isSafeInteger(spec.gas) || spec.gas < 0) throw new Error(`operation "${spec.name}" of ${plugin}: gas must be a non-negative integer`);
    const props = Object.keys(spec.schema.properties);
    const actorField = actorFieldOf(spec);
    if (actorField === undefined || !props.includes(actorField)) throw new Error(`operation "${spec.name}" of ${plugin}: no actor field (one of ${ACTOR_FIELDS.join(', ')}, or name it with "actor")`);
    const valueField = valueFieldOf(spec);
    if (typeof spec.signsFor !== 'string' && !props.includes(spec.signsFor.field)) throw new Error(`operation "${spec.name}" of ${plugin}: signsFor names "${spec.signsFor.field}", which its body does not have`);
    for (const f of props) {
      if (SIGNED_FIELDS.has(f) || f === OP_FIELD || f === PATH_FIELD || f === spec.signing?.secondSignature?.field) throw new Error(`operation "${spec.name}" of ${plugin}: body field "${f}" is one the kernel owns`);
    }
    for (const r of spec.routes) {
      if (r.selectedBy !== undefined && r.selectedBy.type !== 'object') throw new Error(`operation "${spec.name}" of ${plugin}: selectedBy of ${r.method} ${r.path} must be an object schema of the body`);
    }
    this.byName.set(spec.name, { spec: withMainKeyOnly(spec), plugin, actorField, valueField });
    this.groups = undefined;
  }

  /** Every route with the operations submitted through it (route-dispatch.ts); throws for a shared route no body can be told apart on. */
  routeGroups(): readonly OperationRouteGroup<RegisteredOperation>[] {
    return (this.groups ??= operationRouteGroups(this.list(), (o) => o.spec));
  }

  /**
   * Why `body` is not a body of `op` on a route it shares: the route would pick another
   * operation for it (a `.vault` registration sent as `register_node`). Asked of every parse, so
   * an envelope in a block means the operation its route would have chosen.
   */
  private routeProblem(op: RegisteredOperation, body: Readonly<Record<string, unknown>>): string | undefined {
    for (const g of this.routeGroups()) {
      if (g.members.length < 2 || !g.members.some((m) => m.op === op)) continue;
      const chosen = selectOperation(g, body);
      if (chosen !== op) return `${op.spec.name}: this body is ${chosen === undefined ? 'no operation\'s' : `a ${chosen.spec.name} body`} on ${g.method} ${g.path}`;
    }
    return undefined;
  }

  get(name: string): RegisteredOperation | undefined {
    return this.byName.get(name);
  }

  /** Sorted by name: listings must not depend on boot order. */
  list(): RegisteredOperation[] {
    return [...this.byName.values()].sort((a, b) => (a.spec.name < b.spec.name ? -1 : 1));
  }

  /** The transaction body an operation travels as: the client's body, the operation's name and the path's params. */
  envelope(name: string, clientBody: unknown, pathParams: Readonly<Record<string, string>>): Record<string, unknown> {
    if (clientBody === null || typeof clientBody !== 'object' || Array.isArray(clientBody)) throw badRequest('operation body must be a JSON object');
    const b = clientBody as Record<string, unknown>;
    if (OP_FIELD in b || PATH_FIELD in b) throw badRequest(`fields ${OP_FIELD} and ${PATH_FIELD} are reserved`);
    return { ...b, [OP_FIELD]: name, ...(Object.keys(pathParams).length > 0 ? { [PATH_FIELD]: { ...pathParams } } : {}) };
  }

  /**
   * Reads an operation from its transaction body: the same checks at admission and for a block
   * from a peer. A missing signature or key is 401 (part 2, Authentication §4); every other
   * malformed field is 400 naming it.
   */
  parse(envelope: Readonly<Record<string, unknown>>): ParsedOperation {
    const name = envelope[OP_FIELD];
    const op = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (!op) throw badRequest(`unknown operation ${JSON.stringify(name)}`);
    const clientBody: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(envelope)) if (k !== OP_FIELD && k !== PATH_FIELD) clientBody[k] = v;
    const path = envelope[PATH_FIELD] ?? {};
    if (path === null || typeof path !== 'object' || Array.isArray(path)) throw badRequest('malformed operation path parameters');
    const second = op.spec.signing?.secondSignature?.field;
    const body: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(clientBody)) if (!SIGNED_FIELDS.has(k) && k !== second) body[k] = v;
    const pathOnly: string[] = [];
    const pathUncovered: string[] = [];
    /** Path parameters admitted because the Signs-for address is read from them: checked against the target below. */
    const targetFields: string[] = [];
    for (const [k, v] of Object.entries(path as Record<string, unknown>)) {
      if (typeof v !== 'string') throw badRequest('malformed operation path parameters');
      // Neither ch-tx-v2 nor ch-tx-v3 covers the path: only the actor, which the message names,
      // may come from it, unless the operation signs its own layout (which can cover the rest) or
      // names the field in `pathFields` (a ch-tx-v3 signature must then carry it in the body too,
      // where the payload hash covers it: kernel/ops/signature.ts). Anything else would let a
      // relayer add fields to a signed operation.
      const declared = op.spec.pathFields?.includes(k) === true;
      const uncovered = op.spec.uncoveredPathFields?.includes(k) === true;
      if (k !== op.actorField && !op.spec.signing?.message && !declared && !uncovered && !signsForPath(op, k)) throw badRequest(`${k}: not a path parameter of ${op.spec.name}`);
      // A path field also sent in the body may be a JSON number there (a proposal id).
      const inBody = k in body ? (typeof body[k] === 'number' ? String(body[k]) : body[k]) : undefined;
      if (inBody !== undefined && inBody !== v) throw badRequest(`${k}: the body says ${JSON.stringify(body[k])} but the path says ${JSON.stringify(v)}`);
      if (declared && inBody === undefined) pathOnly.push(k);
      if (uncovered && inBody === undefined) pathUncovered.push(k);
      if (!declared && !uncovered && k !== op.actorField && signsForPath(op, k)) targetFields.push(k);
      body[k] = v;
    }
    if (body[op.actorField] === undefined && op.spec.actorFromKey === true && typeof clientBody.public_key === 'string') {
      // decisions.md §90: left out, the actor is the address the signing key derives.
      const key = parseHex(clientBody.public_key);
      if (key !== null) body[op.actorField] = deriveAddress(key);
    }
    const schema = op.spec.schema;
    if (!Value.Check(schema, body)) {
      const first = Value.Errors(schema, body).First();
      const field = first?.path.replace(/^\//, '').replace(/\//g, '.') ?? '';
      throw badRequest(`${op.spec.name}: ${field ? `${field}: ` : ''}${first?.message ?? 'invalid body'}`);
    }
    if (typeof clientBody.signature !== 'string' || clientBody.signature.length === 0) throw unauthorized('signature is required (hex ML-DSA-65 signature)');
    if (typeof clientBody.public_key !== 'string' || clientBody.public_key.length === 0) throw unauthorized('public_key is required (hex ML-DSA-65 public key)');
    const nonce = wireAmount(clientBody.nonce);
    // A millisecond timestamp (decisions.md §6) is at least 10^12 (2001): an account's transfer
    // nonces are never that large, so a ch-tx-v2 transfer signature can never pass for an
    // operation's with the same actor, target and value, nor the other way round.
    if (nonce === null || nonce < MIN_OPERATION_NONCE) throw badRequest(`nonce is required: a millisecond timestamp (at least ${MIN_OPERATION_NONCE}), strictly greater than the last one accepted from this actor`);
    let gasPrice: bigint | undefined;
    if (clientBody.gas_price !== undefined) {
      const g = wireAmount(clientBody.gas_price);
      if (g === null) throw badRequest('gas_price must be a non-negative integer number of ucoin per gas');
      gasPrice = g;
    }
    const gasLimit = parseGasLimit(clientBody[GAS_LIMIT_FIELD]);
    let secondSignature: string | undefined;
    if (second !== undefined && clientBody[second] !== undefined) {
      if (typeof clientBody[second] !== 'string') throw unauthorized(`${second} must be a hex ML-DSA-65 signature`);
      secondSignature = clientBody[second] as string;
    }
    const actor = body[op.actorField];
    if (!isAddress(actor)) throw badRequest(`${op.actorField}: ${JSON.stringify(actor)} is not a chain address`);
    const target = signsForOf(op.spec, body);
    if (!isAddress(target)) throw badRequest(`${op.spec.name}: the address it signs for, ${JSON.stringify(target)}, is not a chain address`);
    // Such a parameter is covered by <target>, which every layout names: it must be the target.
    for (const k of targetFields) if (body[k] !== target) throw badRequest(`${k}: not a path parameter of ${op.spec.name}`);
    const misrouted = this.routeProblem(op, body);
    if (misrouted !== undefined) throw badRequest(misrouted);
    let value = 0n;
    const unit = op.spec.valueUnit === undefined ? COIN_UNIT : op.spec.valueUnit(body as never);
    if (op.valueField !== null && body[op.valueField] !== undefined) {
      const v = wireAmount(body[op.valueField]);
      if (v === null) throw badRequest(`${op.valueField} must be a non-negative integer number of ${unit === COIN_UNIT ? 'ucoin' : 'units'}`);
      value = v;
    }
    const coinValue = unit === COIN_UNIT ? value : 0n;
    const unresolved = (op.spec.signing?.resolve?.fields ?? []).filter((f) => body[f] === undefined);
    return { op, body, clientBody, actor, target, value, nonce, gasPrice, gasLimit, signature: clientBody.signature, publicKey: clientBody.public_key, secondSignature, pathOnly, pathUncovered, unresolved, coinValue };
  }
}

/**
 * Whether path parameter `k` is the body field the operation's Signs-for address is read from (a
 * vault's operations sign for `:vault`). Checked after parsing that the parameter's value is the
 * target, which every layout covers.
 */
function signsForPath(op: RegisteredOperation, k: string): boolean {
  return typeof op.spec.signsFor !== 'string' && op.spec.signsFor.field === k;
}
