import type { CheckFailure } from './check-failure.js';

/**
 * A transfer a client sent, with what it was told: `confirmed` committed, `failed` committed but
 * failed (its fee paid, nothing moved), `refused` at admission, or `unknown` (no answer, a timeout).
 */
export interface SentTransfer {
  readonly id: string;
  readonly client: string;
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
  readonly outcome: 'confirmed' | 'failed' | 'refused' | 'unknown';
}

/** A transaction as the chain holds it after healing: its id, the height that committed it and the fee it paid. */
export interface CommittedTransfer {
  readonly id: string;
  readonly height: number;
  readonly fee: bigint;
  /** Committed as failed: the fee was paid, the amount did not move. */
  readonly failed?: boolean;
}

/**
 * No confirmed transfer lost, none applied twice, none refused yet applied: every transfer a
 * client was told is committed is in the chain exactly once, no id is in it twice, and a refused
 * one is absent. Unknown outcomes may be either, once at most.
 */
export function checkTransfersApplied(sent: readonly SentTransfer[], committed: readonly CommittedTransfer[]): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const heights = new Map<string, number[]>();
  for (const c of committed) heights.set(c.id, [...(heights.get(c.id) ?? []), c.height]);
  const line = (s: SentTransfer): string => `${s.client} ${s.id}: ${s.from} → ${s.to} ${s.amount} (${s.outcome}); committed at ${JSON.stringify(heights.get(s.id) ?? [])}`;
  const lost = sent.filter((s) => s.outcome === 'confirmed' && !heights.has(s.id));
  if (lost.length > 0) failures.push({ check: 'no confirmed transfer lost', message: `${lost.length} transfer(s) confirmed to a client are not in the chain`, window: lost.map(line) });
  const twice = [...heights].filter(([, hs]) => hs.length > 1);
  if (twice.length > 0) failures.push({ check: 'no transfer applied twice', message: `${twice.length} transaction id(s) committed more than once`, window: twice.map(([id, hs]) => `${id} at heights ${hs.join(', ')}`) });
  const refused = sent.filter((s) => s.outcome === 'refused' && heights.has(s.id));
  const wrong = sent.filter((s) => (s.outcome === 'confirmed' && committed.some((c) => c.id === s.id && c.failed)) || (s.outcome === 'failed' && committed.some((c) => c.id === s.id && !c.failed)));
  if (wrong.length > 0) failures.push({ check: 'a client is told what the chain holds', message: `${wrong.length} transfer(s) answered confirmed but failed in the chain, or the other way round`, window: wrong.map(line) });
  if (refused.length > 0) failures.push({ check: 'no refused transfer applied', message: `${refused.length} transfer(s) refused to a client are in the chain`, window: refused.map(line) });
  return failures;
}

/**
 * Every account's balance is its genesis balance plus the credits minus the debits and fees of
 * the transfers the chain committed (whatever the clients were told). The accounts must be ones
 * only these transfers touch (the test's own), so nothing else explains a difference.
 */
export function checkBalances(genesis: ReadonlyMap<string, bigint>, sent: readonly SentTransfer[], committed: readonly CommittedTransfer[], final: ReadonlyMap<string, bigint>): CheckFailure[] {
  const byId = new Map(sent.map((s) => [s.id, s]));
  const expected = new Map(genesis);
  const moves = new Map<string, string[]>();
  const move = (account: string, delta: bigint, why: string): void => {
    expected.set(account, (expected.get(account) ?? 0n) + delta);
    moves.set(account, [...(moves.get(account) ?? []), why]);
  };
  for (const c of committed) {
    const s = byId.get(c.id);
    if (!s) continue;
    if (c.failed) {
      move(s.from, -c.fee, `h${c.height} ${c.id}: failed, −fee ${c.fee}`);
      continue;
    }
    move(s.from, -(s.amount + c.fee), `h${c.height} ${c.id}: −${s.amount} −fee ${c.fee}`);
    move(s.to, s.amount, `h${c.height} ${c.id}: +${s.amount}`);
  }
  const failures: CheckFailure[] = [];
  for (const account of [...new Set([...expected.keys(), ...final.keys()])].sort()) {
    const want = expected.get(account) ?? 0n;
    const got = final.get(account);
    if (got === undefined || got !== want) {
      failures.push({ check: 'balance = genesis + credits − debits − fees', message: `${account} holds ${got ?? 'nothing read'}, expected ${want}`, window: [`genesis ${genesis.get(account) ?? 0n}`, ...(moves.get(account) ?? [])] });
    }
  }
  return failures;
}
