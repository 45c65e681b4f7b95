import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAddress } from '../crypto/address.js';
import { firstRefusal } from '../codec/schema-check.js';
import { AddressString, HexBytes, TxHashString } from './wire-schemas.js';
import { parseAmountText, parseCoinDecimal } from '../codec/amount.js';

test('AddressString refuses exactly what isAddress refuses, in isAddress\'s words', () => {
  const cases = [
    'chain:0123456789abcde.human', 'chain:alice.human', 'chain:validator-1.node', 'chain:0123456789.app', 'chain:v.vault', 'chain:a.agent',
    'chain:system.deploy', 'chain:system.stake', 'chain:models.registry', 'chain:ibc.escrow.channel-0',
    'chain:ALICE.human', 'chain:-a.human', 'chain:a.bank', 'chain:system.', 'chain:system.Deploy', 'chain:ibc.escrow.', 'alice', '', 'chain:', 'chain:a.human ',
    `chain:${'a'.repeat(63)}.human`, `chain:${'a'.repeat(64)}.human`, 'xchain:a.human', 'chain:a.human\n',
  ];
  for (const c of cases) assert.equal(firstRefusal(AddressString, c) === undefined, isAddress(c), JSON.stringify(c));
  assert.deepEqual(firstRefusal(AddressString, 'alice'), { name: 'value', message: '"alice" is not a chain address (chain:<15 hex>.human and the other kinds of part 1)' });
  assert.match(firstRefusal(AddressString, 7)!.message, /"7" is not a chain address/);
});

test('HexBytes: an even number of hex digits, at least one byte, 0x allowed', () => {
  for (const ok of ['00', '0x00', '0061736d', 'ABcd']) assert.equal(firstRefusal(HexBytes, ok), undefined, ok);
  for (const bad of ['', '0x', '0', 'abc', 'zz', '0x0g']) assert.match(firstRefusal(HexBytes, bad)!.message, /even number of hex digits/, bad);
  assert.match(firstRefusal(HexBytes, 'zz')!.message, /non-hex/);
  assert.equal(firstRefusal(TxHashString, `0x${'A'.repeat(64)}`), undefined);
  assert.match(firstRefusal(TxHashString, '0x12')!.message, /0x followed by 64 hex characters/);
});

test('COIN decimals: exact on the digits; parseAmountText keeps its forms', () => {
  assert.deepEqual(parseCoinDecimal('1.005'), { ok: true, ucoin: 1_005_000n });
  assert.deepEqual(parseCoinDecimal('0.000001'), { ok: true, ucoin: 1n });
  assert.match((parseCoinDecimal('1.0000001') as { reason: string }).reason, /at most 6 decimals/);
  assert.equal(parseAmountText('50000000'), 50_000_000n);
  assert.equal(parseAmountText('50 COIN'), 50_000_000n);
  assert.equal(parseAmountText('0.5COIN'), 500_000n);
  assert.equal(parseAmountText('0.1234567 COIN'), null);
  assert.equal(parseAmountText('1e3 COIN'), null);
  assert.equal(parseAmountText('COIN'), null);
});
