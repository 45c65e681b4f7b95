import { Type, type Static } from '@sinclair/typebox';
import { badRequest, conflict, defineOperation, forbidden, sha3Hex0x, type ReadContext, type ReadonlyStore, type Store, type WriteContext } from '../../kernel/sdk.js';
import { modelRegistered, modelVotingUpdate, PendingModel } from './events.js';
import { models, type ModelEntry } from './store.js';

/**
 * The on-chain model registry (part 1 "AI and models", decisions.md §34, §37): validators
 * register a model's name, version and weights_hash; the entry becomes `active` once validators
 * holding more than 2/3 of the voting power registered exactly that triple, `pending` until then.
 * It reads the power, it never changes it (part 1 Consensus 9).
 */
export type { ModelEntry };

export const REGISTRY_TARGET = 'chain:models.registry';

/** An entry's id: the first 16 hex digits of SHA3-256 of `ch-model|<name>|<version>|<weights_hash>`. */
export function modelId(name: string, version: string, weightsHash: string): string {
  return sha3Hex0x(new TextEncoder().encode(`ch-model|${name}|${version}|${weightsHash}`)).slice(2, 18);
}

/** The validator set's power by address, as the last endBlock left it (`ctx.validators`: positive power only). */
export async function validatorPower(ctx: Pick<ReadContext, 'validators'>): Promise<Map<string, bigint>> {
  return new Map((await ctx.validators.latest()).map((v) => [v.address, BigInt(v.power)] as [string, bigint]));
}

/** Whether `votes` hold more than 2/3 of the power. */
export function overTwoThirds(votes: readonly string[], power: ReadonlyMap<string, bigint>): boolean {
  let total = 0n;
  for (const p of power.values()) total += p;
  let voted = 0n;
  for (const v of votes) voted += power.get(v) ?? 0n;
  return total > 0n && voted * 3n > total * 2n;
}

/** Activates `entry`; an older active version of the same name stays `active` and names it in `superseded_by`. */
export async function activate(store: Store & ReadonlyStore, entry: ModelEntry, height: number): Promise<ModelEntry> {
  for (const { key, value: other } of await models.scan(store)) {
    if (other.name === entry.name && other.status === 'active' && other.id !== entry.id && other.superseded_by === undefined) models.set(store, ...key, { ...other, superseded_by: entry.id });
  }
  return { ...entry, status: 'active', activated_height: height };
}

export const RegisterModelSchema = Type.Object(
  {
    from: Type.String({ minLength: 1, maxLength: 128 }),
    name: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' }),
    version: Type.String({ pattern: '^[0-9A-Za-z][0-9A-Za-z.+-]{0,31}$' }),
    weights_hash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    architecture: Type.String({ minLength: 1, maxLength: 64 }),
    params_count: Type.Integer({ minimum: 0 }),
    /** A fraction 0..1, at most 4 decimals (the decimals are judged in `check`, before the role: decisions.md §92). */
    accuracy: Type.Number({ minimum: 0, maximum: 1 }),
  },
  { additionalProperties: false },
);

/**
 * `accuracy` (a fraction with at most 4 decimals) on 10 000, or undefined when it has more
 * decimals. Judged on its decimal text (`toFixed` is exact by the language's definition), not on
 * `a × 10 000` being an integer: 0.0029 × 10 000 is 28.999999999999996 in binary floating point,
 * which refused one valid accuracy in nine.
 */
export function accuracyBp(a: number): bigint | undefined {
  return Number(a.toFixed(4)) === a ? BigInt(Math.round(a * 10_000)) : undefined;
}

export function pendingView(e: ModelEntry, power: ReadonlyMap<string, bigint>): Static<typeof PendingModel> {
  let total = 0n;
  for (const p of power.values()) total += p;
  let voted = 0n;
  for (const v of e.votes) voted += power.get(v) ?? 0n;
  return { id: e.id, name: e.name, version: e.version, weights_hash: e.weights_hash, votes: e.votes.length, voted_power: voted, total_power: total };
}

export const registerModel = defineOperation({
  name: 'register_model',
  description: 'a validator registers a model version; active once validators with more than 2/3 of the power registered the same name, version and weights_hash',
  routes: [{ method: 'POST', path: '/api/v1/models/register' }],
  socketMethod: 'register_model',
  schema: RegisterModelSchema,
  signsFor: REGISTRY_TARGET,
  value: null,
  gas: 50,
  async check(ctx, op) {
    // decisions.md §92: the body is judged before the role, so a malformed one is 400 whoever
    // sends it (the schema has already held accuracy to a JSON number from 0 to 1).
    if (accuracyBp(op.body.accuracy) === undefined) return badRequest(`accuracy ${op.body.accuracy} has more than 4 decimals: a fraction from 0 to 1 with at most 4 decimals, e.g. 0.9512`);
    const power = await validatorPower(ctx);
    if (!power.has(op.actor)) return forbidden(`${op.actor} is not an active validator: only validators register models`);
    const e = await models.get(ctx.store, modelId(op.body.name, op.body.version, op.body.weights_hash));
    if (e?.votes.includes(op.actor)) return conflict(`${op.actor} already registered ${op.body.name} ${op.body.version} with this weights_hash`);
    return undefined;
  },
  async execute(ctx, op) {
    const b = op.body;
    const id = modelId(b.name, b.version, b.weights_hash);
    const existing = await models.get(ctx.store, id);
    let entry: ModelEntry = existing
      ? { ...existing, votes: [...existing.votes, op.actor].sort() }
      : { id, name: b.name, version: b.version, weights_hash: b.weights_hash, architecture: b.architecture, params_count: b.params_count, accuracy_bp: accuracyBp(b.accuracy)!, status: 'pending', votes: [op.actor], registered_height: ctx.block.height, activated_height: null };
    const power = await validatorPower(ctx);
    if (entry.status === 'pending' && overTwoThirds(entry.votes, power)) entry = await activate(ctx.store, entry, ctx.block.height);
    models.set(ctx.store, id, entry);
    modelRegistered.emit(ctx, { id, name: entry.name, version: entry.version, weights_hash: entry.weights_hash, validator: op.actor, status: entry.status });
    await emitVotingUpdate(ctx, power);
  },
});

/** `model_voting_update` (part 2): the entries still pending, after a registration changed them. */
export async function emitVotingUpdate(ctx: WriteContext, power: ReadonlyMap<string, bigint>): Promise<void> {
  const pending = (await models.scan(ctx.store)).filter((e) => e.value.status === 'pending').map((e) => pendingView(e.value, power));
  if (pending.length > 0) modelVotingUpdate.emit(ctx, { models: pending, height: ctx.block.height });
}

export function modelView(e: ModelEntry): Record<string, unknown> {
  const { accuracy_bp, ...rest } = e;
  return { ...rest, accuracy: Number(accuracy_bp) / 10_000 };
}
