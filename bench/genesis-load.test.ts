import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nobleProvider } from '../kernel/crypto/noble-provider.js';
import { genesisRangeAddress } from '../kernel/chain/genesis-accounts.js';
import { genesisDoc } from '../test/helpers/chain-fixture.js';
import { accountAddress, genesisSpread, LOAD_RANGE_SEED, recipientDraw, senderWallets, withGenesisAccounts } from './genesis-load.js';

test('the spread keys a sender per transfer where N allows, and funds the rest by range', () => {
  assert.deepEqual(genesisSpread(1_000_000, 12_000), { total: 1_000_000, senders: 12_000, ranged: 988_000 });
  assert.deepEqual(genesisSpread(1_000, 12_000), { total: 1_000, senders: 1_000, ranged: 0 });
});

test('the genesis lists the senders and one range for the others; recipients cover all N, reproducibly', () => {
  const spread = genesisSpread(10, 3);
  const senders = senderWallets(spread, (seed) => nobleProvider.keygen(seed)).map((w) => w.address);
  assert.equal(new Set(senders).size, 3);
  const doc = withGenesisAccounts(genesisDoc([]), spread, senders);
  assert.deepEqual(doc.accounts.map((a) => a.address), senders);
  assert.deepEqual(doc.account_ranges, [{ seed: LOAD_RANGE_SEED, count: 7, balance: '1000000000' }]);
  assert.equal(accountAddress(spread, senders, 2), senders[2]);
  assert.equal(accountAddress(spread, senders, 3), genesisRangeAddress(LOAD_RANGE_SEED, 0));
  const draw = recipientDraw(spread, senders);
  const drawn = Array.from({ length: 400 }, () => draw(senders[0]!));
  assert.ok(!drawn.includes(senders[0]!));
  const all = Array.from({ length: 10 }, (_, i) => accountAddress(spread, senders, i));
  assert.deepEqual(new Set(drawn), new Set(all.slice(1)));
  const again = recipientDraw(spread, senders);
  assert.deepEqual(Array.from({ length: 400 }, () => again(senders[0]!)), drawn);
});

test('no range when every account is a sender', () => {
  const spread = genesisSpread(2, 5);
  const doc = withGenesisAccounts(genesisDoc([]), spread, ['chain:000000000000001.human', 'chain:000000000000002.human']);
  assert.equal(doc.account_ranges, undefined);
});
