import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSameChain, type BlockView } from './chain-agreement.js';
import { reportFailures } from './check-failure.js';
import { checkSupply } from './supply-check.js';
import { checkBalances, checkTransfersApplied, type CommittedTransfer, type SentTransfer } from './transfer-check.js';

/*
 * The checkers against histories a broken build would leave: each fault the scenarios inject must
 * be able to fail a run, so each check is shown here failing on the history of a bug (a skipped
 * debit, a transfer lost or applied twice, a forked root, a coin created) and passing on a sound one.
 */

const A = 'chain:alice';
const B = 'chain:bob';
const genesis = new Map([[A, 1_000n], [B, 500n]]);
const sent: SentTransfer[] = [
  { id: 't1', client: 'c0', from: A, to: B, amount: 100n, outcome: 'confirmed' },
  { id: 't2', client: 'c1', from: B, to: A, amount: 40n, outcome: 'confirmed' },
  { id: 't3', client: 'c0', from: A, to: B, amount: 7n, outcome: 'unknown' },
  { id: 't4', client: 'c1', from: B, to: A, amount: 9n, outcome: 'refused' },
];
const committed: CommittedTransfer[] = [
  { id: 't1', height: 3, fee: 10n },
  { id: 't2', height: 4, fee: 10n },
  { id: 't3', height: 6, fee: 10n },
];
// A: 1000 − 110 + 40 − 17 = 913; B: 500 + 100 − 50 + 7 = 557.
const final = new Map([[A, 913n], [B, 557n]]);

test('a sound history passes every ledger check', () => {
  assert.deepEqual(checkTransfersApplied(sent, committed), []);
  assert.deepEqual(checkBalances(genesis, sent, committed, final), []);
  assert.deepEqual(checkSupply({ height: 6, genesis: 1_500n, minted: 0n, burned: 30n, held: { balances: 913n + 557n } }), []);
});

test('a confirmed transfer the chain lost fails, naming it', () => {
  const failures = checkTransfersApplied(sent, committed.filter((c) => c.id !== 't2'));
  assert.equal(failures.length, 1);
  assert.equal(failures[0]!.check, 'no confirmed transfer lost');
  assert.match(failures[0]!.window[0]!, /c1 t2/);
});

test('a transfer applied twice fails; a refused one applied fails', () => {
  const twice = checkTransfersApplied(sent, [...committed, { id: 't1', height: 7, fee: 10n }]);
  assert.deepEqual(twice.map((f) => f.check), ['no transfer applied twice']);
  assert.match(twice[0]!.window[0]!, /t1 at heights 3, 7/);
  const refused = checkTransfersApplied(sent, [...committed, { id: 't4', height: 7, fee: 10n }]);
  assert.deepEqual(refused.map((f) => f.check), ['no refused transfer applied']);
});

test('a build that skips a debit fails the balance check and the supply check', () => {
  // t1's 100 credited to bob but never debited from alice (the fee still taken).
  const skipped = new Map([[A, 1_013n], [B, 557n]]);
  const balances = checkBalances(genesis, sent, committed, skipped);
  assert.equal(balances.length, 1);
  assert.match(balances[0]!.message, /chain:alice holds 1013, expected 913/);
  const supply = checkSupply({ height: 6, genesis: 1_500n, minted: 0n, burned: 30n, held: { balances: 1_013n + 557n } });
  assert.equal(supply.length, 1);
  assert.match(supply[0]!.message, /at height 6 .*created 100 ucoin/);
});

test('supply counts every holding: coins moved into a stake or escrow are conserved; one lost from a pool is not', () => {
  const held = { balances: 1_200n, stakes: 200n, delegations: 50n, escrows: 10n, vault: 5n, pools: 5n };
  assert.deepEqual(checkSupply({ height: 9, genesis: 1_470n, minted: 12n, burned: 2n, held: { ...held, balances: 1_210n } }), []);
  const lost = checkSupply({ height: 9, genesis: 1_470n, minted: 12n, burned: 2n, held: { ...held, balances: 1_210n, pools: 4n } });
  assert.match(lost[0]!.message, /lost 1 ucoin/);
});

test('a forked state root fails the agreement check at its first height, with every validator\'s view', () => {
  const chain = (n: number, fork?: { at: number; root?: string; hash?: string }): BlockView[] =>
    Array.from({ length: n }, (_, i) => {
      const height = i + 1;
      const forked = fork !== undefined && height >= fork.at;
      return { height, hash: forked && fork.hash ? `${fork.hash}${height}` : `h${height}`, stateRoot: forked && fork.root ? `${fork.root}${height}` : `r${height}` };
    });
  assert.deepEqual(checkSameChain(new Map([['v0', chain(5)], ['v1', chain(4)], ['v2', chain(5)]])), [], 'a validator behind is no fork');
  const roots = checkSameChain(new Map([['v0', chain(5)], ['v1', chain(5, { at: 3, root: 'x' })]]));
  assert.equal(roots.length, 1);
  assert.match(roots[0]!.message, /height 3: state roots differ under one block hash/);
  assert.deepEqual(roots[0]!.window, ['v0: hash h3 root r3', 'v1: hash h3 root x3']);
  const hashes = checkSameChain(new Map([['v0', chain(5)], ['v1', chain(5, { at: 4, hash: 'y' })]]));
  assert.match(hashes[0]!.message, /height 4: block hashes differ/);
});

test('a failing run prints the seed that replays it and the window of each broken check', () => {
  const text = reportFailures(42, checkTransfersApplied(sent, []));
  assert.match(text, /TEST_SEED=42/);
  assert.match(text, /no confirmed transfer lost: 2 transfer\(s\)/);
  assert.match(text, /c0 t1: chain:alice → chain:bob 100 \(confirmed\)/);
});
