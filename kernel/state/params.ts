import type { StateSource } from './overlay.js';
import { bigintCodec } from './record-codec.js';

/**
 * Governance parameter registry. Every plugin declares its parameters (default, range,
 * description); values live in state under `params/<key>` so a passed change is part of the
 * state root and identical on every validator.
 */
export interface ParamSpec {
  readonly key: string;
  readonly default: bigint;
  /** Inclusive bounds; absent means "no range check" as the spec says for some parameters. */
  readonly min?: bigint;
  readonly max?: bigint;
  readonly description: string;
  /**
   * `ucoin` when the value is an amount of ucoin (a stake, a price, a fee, a limit on an amount):
   * `GET /api/v1/governance/params` then shows `value_human`, `default_human`, `min_human` and
   * `max_human` beside the integers (decisions.md §21). A rate per unit (`base_fee`, ucoin per gas)
   * is not an amount.
   */
  readonly unit?: 'ucoin';
}

export interface ParamReader {
  get(key: string): Promise<bigint>;
  /**
   * Why `value` may not be set for `key` (unknown parameter, outside its range), else null: the
   * check the kernel applies to endBlock's `paramUpdates`, so a plugin (governance) can record
   * the outcome of a change it asks for.
   */
  problem(key: string, value: bigint): string | null;
}

export const PARAMS_NAMESPACE = 'params';
const KEY_RE = /^[a-z][a-z0-9_]{0,63}$/;

export class ParamRegistry {
  private readonly specs = new Map<string, ParamSpec & { owner: string }>();

  declare(owner: string, spec: ParamSpec): void {
    if (!KEY_RE.test(spec.key)) throw new Error(`parameter "${spec.key}" of ${owner}: names are lowercase snake_case`);
    const existing = this.specs.get(spec.key);
    if (existing) throw new Error(`parameter "${spec.key}" is declared by both ${existing.owner} and ${owner}`);
    if (!this.inRange(spec, spec.default)) throw new Error(`parameter "${spec.key}" of ${owner}: default ${spec.default} is outside its range`);
    this.specs.set(spec.key, { ...spec, owner });
  }

  has(key: string): boolean {
    return this.specs.has(key);
  }

  spec(key: string): (ParamSpec & { owner: string }) | undefined {
    return this.specs.get(key);
  }

  /** Sorted by key: listings and genesis writes must not depend on declaration order. */
  list(): Array<ParamSpec & { owner: string }> {
    return [...this.specs.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  inRange(spec: ParamSpec, value: bigint): boolean {
    return (spec.min === undefined || value >= spec.min) && (spec.max === undefined || value <= spec.max);
  }

  /** Error message when `value` may not be set, else null. */
  checkValue(key: string, value: bigint): string | null {
    const spec = this.specs.get(key);
    if (!spec) return `unknown parameter "${key}"`;
    if (!this.inRange(spec, value)) return `parameter "${key}" must be between ${spec.min ?? '-inf'} and ${spec.max ?? 'inf'}, got ${value}`;
    return null;
  }

  reader(source: StateSource): ParamReader {
    return new SourceParams(this, source);
  }

  /** The spec of `key`, or a throw naming it: a plugin reads only declared parameters. */
  declared(key: string): ParamSpec {
    const spec = this.specs.get(key);
    if (!spec) throw new Error(`unknown parameter "${key}"`);
    return spec;
  }
}

/** `ctx.params` over one source: a class, as a block makes one per transaction that reads a parameter. */
class SourceParams implements ParamReader {
  constructor(
    private readonly registry: ParamRegistry,
    private readonly source: StateSource,
  ) {}

  async get(key: string): Promise<bigint> {
    const spec = this.registry.declared(key);
    const raw = await this.source.get(`${PARAMS_NAMESPACE}/${key}`);
    return raw === undefined ? spec.default : decodeParam(raw);
  }

  problem(key: string, value: bigint): string | null {
    return this.registry.checkValue(key, value);
  }
}

/**
 * Decoded values by the bytes object they were read from: the state cache and overlays hand back
 * the same object until the parameter is rewritten, and state bytes are never changed in place,
 * so a parameter read by every transaction (a plugin's on/off switch, a threshold) is parsed once.
 */
const decodedParams = new WeakMap<Uint8Array, bigint>();

function decodeParam(raw: Uint8Array): bigint {
  let v = decodedParams.get(raw);
  if (v === undefined) decodedParams.set(raw, (v = bigintCodec.decode(raw)));
  return v;
}

export function paramStateKey(key: string): string {
  return `${PARAMS_NAMESPACE}/${key}`;
}
