import { test } from 'node:test';
import assert from 'node:assert/strict';
import { balanceModel, type BalanceInput, type BalanceOutput } from './balance-model.js';
import { checkLinearizable } from './linearizability.js';
import type { Model } from './model.js';
import type { Operation } from './operation.js';
import { mulberry32 } from '../../helpers/prng.js';

type Op = Operation<BalanceInput, BalanceOutput>;
const A = 'chain:alice';
const model = balanceModel(new Map([[A, 100n]]));
const read = (client: string, calledAt: number, returnedAt: number, balance: bigint | undefined, account = A): Op => ({ client, input: { kind: 'read', account }, output: balance === undefined ? undefined : { kind: 'read', balance }, calledAt, returnedAt });
const transfer = (client: string, calledAt: number, returnedAt: number, delta: bigint, committed: boolean | undefined, account = A): Op => ({ client, input: { kind: 'transfer', account, delta }, output: committed === undefined ? undefined : { kind: 'transfer', committed }, calledAt, returnedAt });

test('known-good: sequential reads and transfers, each read seeing every transfer confirmed before it', () => {
  const history = [read('r', 0, 1, 100n), transfer('w', 2, 3, -10n, true), read('r', 4, 5, 90n), transfer('w', 6, 7, 5n, false), read('r', 8, 9, 90n)];
  assert.deepEqual(checkLinearizable(model, history), { ok: true });
});

test('known-good: a read concurrent with a transfer may see the balance before or after it', () => {
  for (const seen of [100n, 90n]) assert.equal(checkLinearizable(model, [transfer('w', 0, 10, -10n, true), read('r', 2, 5, seen)]).ok, true, `read ${seen}`);
});

test('known-good: a transfer whose answer never came may have happened or not, and reads decide which', () => {
  const lost = transfer('w', 0, Infinity, -10n, undefined);
  assert.equal(checkLinearizable(model, [lost, read('r', 5, 6, 100n), read('r', 7, 8, 100n)]).ok, true, 'never applied');
  assert.equal(checkLinearizable(model, [lost, read('r', 5, 6, 100n), read('r', 7, 8, 90n)]).ok, true, 'applied between the reads');
  // Once seen applied it cannot be unseen.
  assert.equal(checkLinearizable(model, [lost, read('r', 5, 6, 90n), read('r', 7, 8, 100n)]).ok, false, 'applied, then gone');
});

test('known-bad: a stale read after a confirmed transfer fails, naming the read and its window', () => {
  const stale = read('r2', 20, 21, 100n);
  const history = [read('r1', 0, 1, 100n), transfer('w', 2, 10, -10n, true), read('r1', 11, 12, 90n), stale];
  const result = checkLinearizable(model, history);
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.part, A);
  assert.equal(result.failure.culprit, stale);
  assert.deepEqual(result.failure.window, [stale]);
  assert.equal(result.failure.longestPrefix.length, 3);
});

test('known-bad: a debit applied twice (a read shows both) fails; a read of a balance no order gives fails', () => {
  assert.equal(checkLinearizable(model, [transfer('w', 0, 1, -10n, true), read('r', 2, 3, 80n)]).ok, false, 'applied twice');
  assert.equal(checkLinearizable(model, [transfer('w', 0, 10, -10n, true), transfer('v', 0, 10, 5n, true), read('r', 1, 9, 97n)]).ok, false, 'no order gives 97');
  assert.equal(checkLinearizable(model, [transfer('w', 0, 10, -10n, true), transfer('v', 0, 10, 5n, true), read('r', 1, 9, 95n)]).ok, true, 'after both');
});

test('accounts are checked apart: a bad history of one account is blamed on it alone', () => {
  const B = 'chain:bob';
  const result = checkLinearizable(model, [read('r', 0, 1, 0n, B), transfer('w', 2, 3, 7n, true, B), read('r', 4, 5, 100n), read('r', 6, 7, 0n, B)]);
  assert.equal(result.ok, false);
  if (!result.ok) assert.equal(result.part, B);
});

test('a register model: the textbook non-linearizable history (a read returns a value written after a later read saw the new one) fails', () => {
  type RegIn = { op: 'w'; v: number } | { op: 'r' };
  const register: Model<number, RegIn, number> = { name: 'register', init: () => 0, key: String, step: (s, i, o) => (i.op === 'w' ? [i.v] : o === undefined || o === s ? [s] : []) };
  const op = (client: string, calledAt: number, returnedAt: number, input: RegIn, output: number): Operation<RegIn, number> => ({ client, input, output, calledAt, returnedAt });
  // w(1) spans both reads; r1 sees 1 and finishes before r2 starts, r2 sees 0.
  const bad = [op('a', 0, 100, { op: 'w', v: 1 }, 0), op('b', 10, 20, { op: 'r' }, 1), op('c', 30, 40, { op: 'r' }, 0)];
  assert.equal(checkLinearizable(register, bad).ok, false);
  const good = [op('a', 0, 100, { op: 'w', v: 1 }, 0), op('b', 10, 20, { op: 'r' }, 0), op('c', 30, 40, { op: 'r' }, 1)];
  assert.equal(checkLinearizable(register, good).ok, true);
});

test('seeded random histories made from a real sequential run are always linearizable, and one corrupted read never is', () => {
  const seed = 3901;
  const rand = mulberry32(seed);
  for (let round = 0; round < 50; round++) {
    // Operations take effect at distinct instants inside their [call, return] intervals.
    let balance = 100n;
    const history: Op[] = [];
    let t = 0;
    for (let i = 0; i < 12; i++) {
      t += 1 + Math.floor(rand() * 3);
      const calledAt = t - Math.floor(rand() * 3);
      const returnedAt = t + Math.floor(rand() * 3);
      if (rand() < 0.5) {
        const delta = BigInt(Math.floor(rand() * 21) - 10);
        balance += delta;
        history.push(transfer(`c${i % 3}`, calledAt, returnedAt, delta, true));
      } else history.push(read(`c${i % 3}`, calledAt, returnedAt, balance));
    }
    assert.equal(checkLinearizable(model, history).ok, true, `seed ${seed} round ${round}`);
    const reads = history.map((o, i) => [o, i] as const).filter(([o]) => o.input.kind === 'read');
    if (reads.length === 0) continue;
    const [victim, at] = reads[Math.floor(rand() * reads.length)]!;
    const corrupted = [...history];
    corrupted[at] = { ...victim, output: { kind: 'read', balance: 1_000_000n } };
    assert.equal(checkLinearizable(model, corrupted).ok, false, `seed ${seed} round ${round}: an impossible balance`);
  }
});
