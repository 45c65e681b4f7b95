import { test } from 'node:test';
import assert from 'node:assert/strict';
import { counterpartyHeader, ibcSigners } from '../../test/helpers/ibc-chain.js';
import { IBC_VALSET_KEY, LightClientError, ibcCommitmentKey, ibcReceiptKey, ibcValsetValue, verifyIbcHeader, verifyIbcProof, type IbcValidator, type LightClientCheck } from './index.js';

const CHAIN = 'ibc-b';
const FOUR = ibcSigners([10, 10, 10, 10]);
const THREE = ibcSigners([10, 10, 10], 60);
const setOf = (signers: readonly { public_key: string; power: bigint }[]): IbcValidator[] => signers.map((s) => ({ public_key: s.public_key, power: s.power }));
const copy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function refusedWith(check: LightClientCheck, fn: () => unknown): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof LightClientError, `expected a LightClientError, got ${String(e)}`);
    assert.equal(e.check, check, e.message);
    return true;
  });
}

test('a header signed by its whole set creates a client and one signed by > 2/3 of the trusted set updates it', async () => {
  const h = await counterpartyHeader({ chainId: CHAIN, height: 10, validators: FOUR });
  const created = verifyIbcHeader(h.header, null);
  assert.equal(created.header.height, 10);
  assert.equal(created.totalPower, 40n);
  assert.deepEqual(created.header.validators, setOf(FOUR));
  const three = await counterpartyHeader({ chainId: CHAIN, height: 20, validators: FOUR, signers: FOUR.slice(1) });
  assert.equal(verifyIbcHeader(three.header, setOf(FOUR)).header.height, 20);
});

test('signers holding exactly 2/3 of the power are refused; one more ucoin of power passes', async () => {
  const two = await counterpartyHeader({ chainId: CHAIN, height: 11, validators: THREE, signers: THREE.slice(0, 2) });
  refusedWith('trusted_power', () => verifyIbcHeader(two.header, setOf(THREE)));
  const heavier = setOf(THREE).map((v, i) => (i === 0 ? { ...v, power: 11n } : v));
  // 21 of 31: 63 > 62.
  assert.equal(verifyIbcHeader(two.header, heavier).signedPower, 21n);
});

test('one signature repeated under the same key counts once', async () => {
  const h = await counterpartyHeader({ chainId: CHAIN, height: 12, validators: FOUR, signers: FOUR.slice(0, 1) });
  const forged = copy(h.header);
  const one = (forged['signatures'] as unknown[])[0];
  forged['signatures'] = [one, one, one, one];
  refusedWith('trusted_power', () => verifyIbcHeader(forged, setOf(FOUR)));
});

test('signatures over another tag, another height or by keys outside the trusted set do not count', async () => {
  const otherTag = await counterpartyHeader({ chainId: CHAIN, height: 13, validators: FOUR, message: 'ch-tx-v4|ibc-b|13' });
  refusedWith('trusted_power', () => verifyIbcHeader(otherTag.header, setOf(FOUR)));
  const h = await counterpartyHeader({ chainId: CHAIN, height: 13, validators: FOUR });
  const moved = { ...copy(h.header), height: 14 };
  refusedWith('validators_proof', () => verifyIbcHeader({ ...moved, state_root: '0x' + 'ee'.repeat(32) }, setOf(FOUR)));
  refusedWith('trusted_power', () => verifyIbcHeader(moved, setOf(FOUR)));
  const strangers = await counterpartyHeader({ chainId: CHAIN, height: 15, validators: THREE });
  refusedWith('trusted_power', () => verifyIbcHeader(strangers.header, setOf(FOUR)));
});

test('a new set is adopted only through its proof under the header root', async () => {
  // FOUR signs a header whose state names THREE as the set: accepted, and THREE is what the caller adopts.
  const change = await counterpartyHeader({ chainId: CHAIN, height: 30, validators: THREE, signers: FOUR });
  assert.deepEqual(verifyIbcHeader(change.header, setOf(FOUR)).header.validators, setOf(THREE));
  // The same signatures with a set the state does not hold: refused.
  const lie = copy(change.header);
  lie['validators'] = FOUR.map((v) => ({ public_key: v.public_key, power: 10 }));
  refusedWith('validators_proof', () => verifyIbcHeader(lie, setOf(FOUR)));
  const inflated = copy(change.header);
  (inflated['validators'] as Array<Record<string, unknown>>)[0]!['power'] = 1000;
  refusedWith('validators_proof', () => verifyIbcHeader(inflated, setOf(FOUR)));
});

test('malformed and non-canonical headers and validator lists are refused as shape', async () => {
  const h = await counterpartyHeader({ chainId: CHAIN, height: 40, validators: FOUR });
  const bad: Array<[string, (x: Record<string, unknown>) => void]> = [
    ['height 0', (x) => (x['height'] = 0)],
    ['height as text', (x) => (x['height'] = '40')],
    ['uppercase root', (x) => (x['state_root'] = (x['state_root'] as string).toUpperCase().replace('0X', '0x'))],
    ['chain id with upper case', (x) => (x['chain_id'] = 'IBC-B')],
    ['validators out of order', (x) => (x['validators'] as unknown[]).reverse()],
    ['a key listed twice', (x) => (x['validators'] = [(x['validators'] as unknown[])[0], (x['validators'] as unknown[])[0]])],
    ['power 0', (x) => ((x['validators'] as Array<Record<string, unknown>>)[0]!['power'] = 0)],
    ['negative power', (x) => ((x['validators'] as Array<Record<string, unknown>>)[0]!['power'] = -1)],
    ['fractional power', (x) => ((x['validators'] as Array<Record<string, unknown>>)[0]!['power'] = 1.5)],
    ['no validators', (x) => (x['validators'] = [])],
    ['signatures not an array', (x) => (x['signatures'] = {})],
    ['0x signature', (x) => ((x['signatures'] as Array<Record<string, unknown>>)[0]!['signature'] = '0xab')],
    ['missing proof', (x) => delete x['validators_proof']],
  ];
  for (const [why, lie] of bad) {
    const x = copy(h.header);
    lie(x);
    refusedWith('shape', () => verifyIbcHeader(x, null));
    assert.ok(why);
  }
});

test('every malformed or non-canonical proof shape fails, never throws', async () => {
  const h = await counterpartyHeader({ chainId: CHAIN, height: 50, validators: FOUR, records: { 'ibc/commitments/ch-1/1': '60|x', 'ibc/commitments/ch-1/2': '60|y' } });
  const entry = await h.prove(ibcCommitmentKey('ch-1', 1));
  const good = entry.proof as { leaf: { keyHash: string; valueHash: string }; siblings: string[] };
  assert.equal(verifyIbcProof(h.root, ibcCommitmentKey('ch-1', 1), '60|x', good), true);
  const shapes: unknown[] = [
    null,
    [],
    'proof',
    { ...good, extra: 1 },
    { leaf: good.leaf },
    { leaf: { ...good.leaf, more: 1 }, siblings: good.siblings },
    { leaf: { keyHash: good.leaf.keyHash.toUpperCase(), valueHash: good.leaf.valueHash }, siblings: good.siblings },
    { leaf: good.leaf, siblings: good.siblings.map((s) => s.slice(2)) },
    { leaf: good.leaf, siblings: [...good.siblings, '0x' + '00'.repeat(32)] },
    { leaf: good.leaf, siblings: new Array(257).fill('0x' + '11'.repeat(32)) },
    { leaf: good.leaf, siblings: 'abc' },
    { leaf: good.leaf, siblings: good.siblings.slice(1) },
  ];
  for (const p of shapes) assert.equal(verifyIbcProof(h.root, ibcCommitmentKey('ch-1', 1), '60|x', p), false, JSON.stringify(p)?.slice(0, 80));
  // Another key's proof, another value, another root.
  const other = await h.prove(ibcCommitmentKey('ch-1', 2));
  assert.equal(verifyIbcProof(h.root, ibcCommitmentKey('ch-1', 1), '60|x', other.proof), false);
  assert.equal(verifyIbcProof(h.root, ibcCommitmentKey('ch-1', 1), '60|y', good), false);
  assert.equal(verifyIbcProof('0x' + 'ab'.repeat(32), ibcCommitmentKey('ch-1', 1), '60|x', good), false);
  assert.equal(verifyIbcProof('not a root', ibcCommitmentKey('ch-1', 1), '60|x', good), false);
});

test('absence proofs: a missing receipt proves absent, a present one never does', async () => {
  const h = await counterpartyHeader({ chainId: CHAIN, height: 60, validators: FOUR, records: { [ibcReceiptKey('ch-1', 1)]: '70|x' } });
  const missing = await h.prove(ibcReceiptKey('ch-1', 2));
  assert.equal(missing.exists, false);
  assert.equal(verifyIbcProof(h.root, ibcReceiptKey('ch-1', 2), null, missing.proof), true);
  assert.equal(verifyIbcProof(h.root, ibcReceiptKey('ch-1', 2), '70|x', missing.proof), false);
  const present = await h.prove(ibcReceiptKey('ch-1', 1));
  assert.equal(verifyIbcProof(h.root, ibcReceiptKey('ch-1', 1), null, present.proof), false);
  // An absence proof of one key says nothing of another.
  assert.equal(verifyIbcProof(h.root, ibcReceiptKey('ch-1', 1), null, missing.proof), false);
});

test('powers near 2^64 are exact: the valset text, the sum and the 2/3 rule in bigint', async () => {
  const big = 2n ** 64n - 1n;
  const signers = ibcSigners([big, big, big], 80);
  assert.equal(ibcValsetValue(signers).split('\n')[0]!.split('|')[1], '18446744073709551615');
  const h = await counterpartyHeader({ chainId: CHAIN, height: 70, validators: signers, signers: signers.slice(0, 2) });
  refusedWith('trusted_power', () => verifyIbcHeader(h.header, null));
  const all = await counterpartyHeader({ chainId: CHAIN, height: 71, validators: signers });
  const v = verifyIbcHeader(all.header, null);
  assert.equal(v.totalPower, 3n * big);
  assert.equal(v.header.validators[0]!.power, big);
  assert.equal(verifyIbcProof(all.root, IBC_VALSET_KEY, ibcValsetValue(signers), all.header['validators_proof']), true);
});
