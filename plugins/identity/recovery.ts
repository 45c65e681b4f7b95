import { isAddress, notFound, type ChainError, type ReadContext, type WriteContext } from '../../kernel/sdk.js';
import { currentKeys, recordRemoved, recordReset } from './keys.js';
import { recoveryClosed, recoveryCompleted } from './events.js';
import { configs, dueList, requests, type DueEntry, type RecoveryConfig, type RecoveryRequest, type RecoveryStatus } from './store.js';

/** The owner's recovery; none for what is no address (a body or a path may name anything). */
export async function readConfig(ctx: Pick<ReadContext, 'store'>, owner: string): Promise<RecoveryConfig | undefined> {
  return isAddress(owner) ? configs.get(ctx.store, owner) : undefined;
}

/** The target's latest request, open or closed; none for what is no address. */
export async function latestRequest(ctx: Pick<ReadContext, 'store'>, target: string): Promise<RecoveryRequest | undefined> {
  return isAddress(target) ? requests.get(ctx.store, target) : undefined;
}

/** The open request for `target`, or the 404 a client is told (decisions.md §31: an unknown record named in the body). */
export async function openRequest(ctx: Pick<ReadContext, 'store'>, target: string): Promise<RecoveryRequest | ChainError> {
  const r = await latestRequest(ctx, target);
  return r !== undefined && r.status === 'open' ? r : notFound(`no open recovery request for ${target}`);
}

function writeDue(ctx: WriteContext, entries: readonly DueEntry[]): void {
  if (entries.length === 0) dueList.delete(ctx.store);
  else dueList.set(ctx.store, { entries: [...entries] });
}

const byHeightThenTarget = (a: DueEntry, b: DueEntry): number => a.height - b.height || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);

/** Adds or removes the completion of `target` at `height`; the list stays sorted, an empty one is deleted. */
async function updateDue(ctx: WriteContext, height: number, target: string, add: boolean): Promise<void> {
  const now = (await dueList.get(ctx.store))?.entries ?? [];
  const rest = now.filter((e) => !(e.height === height && e.target === target));
  writeDue(ctx, add ? [...rest, { height, target }].sort(byHeightThenTarget) : rest);
}

/** Takes the completions due at or before `height` off the list, in order: the targets to complete now. */
export async function takeDue(ctx: WriteContext, height: number): Promise<readonly string[]> {
  const now = (await dueList.get(ctx.store))?.entries;
  if (now === undefined || now[0]!.height > height) return [];
  writeDue(ctx, now.filter((e) => e.height > height));
  return now.filter((e) => e.height <= height).map((e) => e.target);
}

/** Closes a request without completing it; a scheduled completion is dropped. */
export async function closeRequest(ctx: WriteContext, r: RecoveryRequest, status: Exclude<RecoveryStatus, 'open' | 'completed'>): Promise<void> {
  if (r.due_height !== null) await updateDue(ctx, r.due_height, r.target, false);
  requests.set(ctx.store, r.target, { ...r, status, due_height: null, closed_height: ctx.block.height });
  recoveryClosed.emit(ctx, { target: r.target, status });
}

/**
 * Once approvals reach the threshold, the request completes at the end of block
 * `max(request height + timelock, this block)`: the owner has the whole timelock to cancel.
 */
export async function scheduleIfApproved(ctx: WriteContext, r: RecoveryRequest, config: RecoveryConfig): Promise<RecoveryRequest> {
  if (r.due_height !== null || r.approvals.length < config.threshold) return r;
  const due = Math.max(r.height + config.timelock, ctx.block.height);
  await updateDue(ctx, due, r.target, true);
  return { ...r, due_height: due };
}

/** The new key replaces every main key of the target; what the old keys granted ends. */
export async function completeRecovery(ctx: WriteContext, target: string): Promise<void> {
  const r = await requests.get(ctx.store, target);
  if (r === undefined || r.status !== 'open') return;
  const old = await currentKeys(ctx, target);
  for (const k of old.keys) if (k !== r.new_key) recordRemoved(ctx, target, k);
  recordReset(ctx, target);
  ctx.accounts.setMainKeys(target, { keys: [r.new_key], version: old.version + 1 });
  requests.set(ctx.store, target, { ...r, status: 'completed', due_height: null, closed_height: ctx.block.height });
  recoveryCompleted.emit(ctx, { target, new_key: r.new_key, version: old.version + 1 });
}
