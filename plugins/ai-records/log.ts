import type { BlockEvent, ReadonlyStore, Store } from '../../kernel/sdk.js';
import { logEntries, logLength, type LogEntry } from './store.js';

/**
 * The AI decision log (part 1 "AI and models"; part 2 `oracle_decision`): one entry per decision
 * another plugin announced with an event in this block. The log is derived, in consensus, from
 * the block's events (`ctx.blockEvents()` in endBlock), so the deciding plugins (sentinel,
 * staking) need not know it exists.
 */
export type { LogEntry };

export type Decision = Omit<LogEntry, 'id' | 'height' | 'timestamp'>;

const str = (x: unknown): string => (typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'bigint' ? String(x) : '');
/** `"0.8717"` (the sentinel's event text) to 8717. */
function bpOf(x: unknown): bigint {
  const m = /^(\d+)(?:\.(\d{1,4}))?$/.exec(str(x));
  return m ? BigInt(m[1]!) * 10_000n + BigInt((m[2] ?? '').padEnd(4, '0')) : 0n;
}

/** The model the sentinel's decisions are logged under (decisions.md §34). */
export const SENTINEL_MODEL = 'sentinel';
/** Jail and slash are rule decisions from verified double-sign evidence. */
export const EVIDENCE_MODEL = 'double-sign-evidence';

/** The decisions an event stands for (none for events that are not decisions). */
export function decisionsOf(e: BlockEvent): Decision[] {
  const d = e.data as Record<string, unknown>;
  const tx = e.tx_hash ?? (typeof d.tx_hash === 'string' ? d.tx_hash : null);
  const sentinel = (kind: string, decision: string): Decision[] => [{ model: SENTINEL_MODEL, kind, subject: str(d.tx_hash), decision, confidence_bp: bpOf(d.score), tx_hash: tx, source_event: e.type }];
  switch (e.type) {
    case 'tx_anomaly':
      return sentinel('anomaly', `anomalous:${str(d.category)}`);
    case 'tx_held':
      return sentinel('hold', d.needs_owner === true ? 'held_until_owner_confirms' : 'held_until_release');
    case 'tx_released':
      return sentinel('release', 'released');
    case 'tx_refunded':
      return sentinel('refund', 'refunded');
    case 'tx_cancelled':
      return sentinel('cancel', 'cancelled');
    case 'validator_slashed':
      return [
        { model: EVIDENCE_MODEL, kind: 'slash', subject: str(d.validator), decision: `slashed:${str(d.amount)}`, confidence_bp: 10_000n, tx_hash: tx, source_event: e.type },
        { model: EVIDENCE_MODEL, kind: 'jail', subject: str(d.validator), decision: `jailed_until:${str(d.jailed_until)}`, confidence_bp: 10_000n, tx_hash: tx, source_event: e.type },
      ];
    default:
      return [];
  }
}

export async function logCount(store: ReadonlyStore): Promise<number> {
  return Number((await logLength.get(store)) ?? 0n);
}

/** Appends entries with the next ids; returns them. */
export async function append(store: Store, at: { height: number; timestamp: number }, decisions: readonly Decision[]): Promise<LogEntry[]> {
  if (decisions.length === 0) return [];
  let n = await logCount(store);
  const out: LogEntry[] = [];
  for (const d of decisions) {
    const entry: LogEntry = { id: ++n, ...d, height: at.height, timestamp: at.timestamp };
    logEntries.set(store, entry.id, entry);
    out.push(entry);
  }
  logLength.set(store, BigInt(n));
  return out;
}

export function entryView(e: LogEntry): Record<string, unknown> {
  const { confidence_bp, ...rest } = e;
  return { ...rest, confidence: Number(confidence_bp) / 10_000 };
}


