import type { Validator } from '../consensus/types.js';
import type { StateOverlay, StateSource } from './overlay.js';
import { jsonRecord } from './record-codec.js';
import { VALIDATORS_NAMESPACE, readValidatorSet, writeValidator } from './validator-set.js';

/*
 * Which validator set was in force at each height, kept in state so that every node (and a node
 * started from a snapshot) judges old evidence and derives the set of a coming height alike.
 *
 * `vset/<address>` holds the set as the last endBlock left it: what the staking plugin diffs
 * against. Beside it, per validator, the record in force from a height on:
 * `kernel/vset_history/<address>/<from>` (from zero-padded, so keys sort by height). A validator
 * without history entries has held its `vset/` record (or its absence) since before the history
 * began: genesis writes none, and a chain written by an earlier build reads the same way. Its
 * first change writes the record it held before under `from` 0, then the new one.
 */

/** Where the history lives: under the kernel's own namespace, which no plugin may take. */
export const VALIDATOR_HISTORY_PREFIX = 'kernel/vset_history/';

/**
 * Heights between the block whose endBlock changes the set and the first height the new set
 * signs: the set of height h is what blocks up to h - SET_CHANGE_DELAY made it (decisions.md §22;
 * CometBFT's H + 2). Two, not one: while a node works on height h, the set of h + 1 is already
 * fixed by committed state, so messages for h + 1 that arrive early are checked against the set
 * that will count them, and a node whose key joins learns it a whole height before it must sign.
 */
export const SET_CHANGE_DELAY = 2;

/** Digits of Number.MAX_SAFE_INTEGER: every height pads to the same width. */
const HEIGHT_DIGITS = 16;
const codec = jsonRecord<{ public_key: string; power: bigint }>();

function historyPrefix(address: string): string {
  return `${VALIDATOR_HISTORY_PREFIX}${address}/`;
}

function historyKey(address: string, from: number): string {
  return historyPrefix(address) + String(from).padStart(HEIGHT_DIGITS, '0');
}

/** Whether a state key belongs to the validator set or its history (a block that writes one changes what `ValidatorHistory` reads). */
export function isValidatorSetKey(key: string): boolean {
  return key.startsWith(`${VALIDATORS_NAMESPACE}/`) || key.startsWith(VALIDATOR_HISTORY_PREFIX);
}

/**
 * Applies endBlock's validated updates made by block `height`: each takes effect at
 * `height + SET_CHANGE_DELAY`. A validator's entries that stopped being in force before the
 * oldest height evidence may still name (`windowBlocks` back from the next block) are dropped,
 * so the history stays as long as the window, not as long as the chain. The removal of a
 * validator stays as an entry of a few bytes until the address changes again.
 */
export async function writeValidatorUpdates(overlay: StateOverlay, height: number, updates: readonly Validator[], windowBlocks: bigint): Promise<void> {
  const from = height + SET_CHANGE_DELAY;
  const oldestJudged = BigInt(height + 1) - windowBlocks;
  for (const u of updates) {
    const froms = (await overlay.scan(historyPrefix(u.address))).map(([key]) => Number(key.slice(key.lastIndexOf('/') + 1)));
    if (froms.length === 0) {
      const before = await overlay.get(`${VALIDATORS_NAMESPACE}/${u.address}`);
      if (before !== undefined) {
        overlay.set(historyKey(u.address, 0), before);
        froms.push(0);
      }
    }
    froms.push(from);
    // An entry is in force until the next one's height: needed while that is past the oldest height judged.
    for (let i = 0; i + 1 < froms.length; i++) if (BigInt(froms[i + 1]!) <= oldestJudged) overlay.delete(historyKey(u.address, froms[i]!));
    overlay.set(historyKey(u.address, from), codec.encode({ public_key: u.power > 0n ? u.public_key : '', power: u.power }));
    writeValidator(overlay, u);
  }
}

/** The validator set of any height the history still covers, read from one state. */
export class ValidatorHistory {
  private constructor(
    /** The set as the last endBlock left it (`vset/`). */
    private readonly latest: ReadonlyMap<string, Validator>,
    /** Per validator with history: its records by the height each took effect, ascending. */
    private readonly changes: ReadonlyMap<string, ReadonlyArray<{ readonly from: number; readonly validator: Validator | undefined }>>,
  ) {}

  static async read(source: StateSource): Promise<ValidatorHistory> {
    const latest = new Map((await readValidatorSet(source)).map((v) => [v.address, v] as const));
    const changes = new Map<string, Array<{ from: number; validator: Validator | undefined }>>();
    // scan() is sorted by key, and the padded heights sort by number within an address.
    for (const [key, value] of await source.scan(VALIDATOR_HISTORY_PREFIX)) {
      const rest = key.slice(VALIDATOR_HISTORY_PREFIX.length);
      const cut = rest.lastIndexOf('/');
      const address = rest.slice(0, cut);
      const record = codec.decode(value);
      const list = changes.get(address) ?? [];
      list.push({ from: Number(rest.slice(cut + 1)), validator: record.power > 0n ? { address, public_key: record.public_key, power: record.power } : undefined });
      changes.set(address, list);
    }
    return new ValidatorHistory(latest, changes);
  }

  /** The validator's record in force at `height`; undefined when it was not in the set then. */
  validatorAt(address: string, height: number): Validator | undefined {
    const list = this.changes.get(address);
    if (list === undefined) return this.latest.get(address);
    let found: Validator | undefined;
    for (const entry of list) {
      if (entry.from > height) break;
      found = entry.validator;
    }
    return found;
  }

  /** The set in force at `height`, in address order. */
  setAt(height: number): Validator[] {
    const addresses = [...new Set([...this.latest.keys(), ...this.changes.keys()])].sort();
    const set: Validator[] = [];
    for (const address of addresses) {
      const v = this.validatorAt(address, height);
      if (v !== undefined) set.push(v);
    }
    return set;
  }
}
