import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../codec/json.js';
import { sha3Hex0x } from '../crypto/hash.js';
import { certify, headerOf, makeSigners, provenAccount, served, stateOf, type TestSigner } from '../../test/helpers/light-chain.js';
import {
  LightClientError,
  ONE_THIRD,
  TWO_THIRDS,
  nextValidatorsOf,
  parseHeader,
  sortValidators,
  trustFromGenesis,
  validatorsHash,
  verifyCommit,
  verifyProvenRead,
  type LightClientCheck,
  type TrustedValidators,
} from './index.js';
import { validatorSetHash } from '../chain/block-hash.js';

const CHAIN = 'lc-test';
const FOUR = makeSigners([10, 10, 10, 10]);
const trustedFour: TrustedValidators = { chainId: CHAIN, validators: sortValidators(FOUR) };
type Answer = Record<string, unknown> & { proof: Record<string, unknown> };

function refusedWith(check: LightClientCheck, fn: () => unknown): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof LightClientError, `expected a LightClientError, got ${String(e)}`);
    assert.equal(e.check, check, e.message);
    return true;
  });
}

async function honest(o: Partial<Parameters<typeof provenAccount>[0]> = {}): Promise<Answer> {
  return (await provenAccount({ chainId: CHAIN, height: 7, set: FOUR, ...o })) as Answer;
}

/** A deep copy to lie in. */
const copy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

test('an honest proven account read is accepted and keeps the trusted set', async () => {
  const answer = await honest();
  const read = verifyProvenRead(answer, trustedFour, { kind: 'account' });
  assert.equal(read.height, 7);
  assert.equal(read.commit.setChanged, false);
  assert.equal(read.trusted, trustedFour);
  assert.equal(read.entries[0]!.exists, true);
  assert.deepEqual(read.entries[0]!.record, { balance: 5_000_000n, nonce: 3n, tx_count: 4n });
});

test('the kernel hashes a set as the light client does, whatever order it holds it in', () => {
  assert.equal(validatorSetHash([...FOUR].reverse()), validatorsHash(sortValidators(FOUR)));
  const text = `ch-valset-v1|1|${FOUR[0]!.address}|10|${FOUR[0]!.public_key}`;
  assert.equal(validatorsHash([FOUR[0]!]), sha3Hex0x(text));
});

test('a lying balance, nonce or missing account field is refused as answer_field', async () => {
  const answer = await honest();
  refusedWith('answer_field', () => verifyProvenRead({ ...answer, balance: 5_000_001 }, trustedFour, { kind: 'account' }));
  refusedWith('answer_field', () => verifyProvenRead({ ...answer, nonce: 4 }, trustedFour, { kind: 'account' }));
  const { tx_count: _dropped, ...withoutCount } = answer;
  refusedWith('answer_field', () => verifyProvenRead(withoutCount, trustedFour, { kind: 'account' }));
});

test('a lying value or sibling is refused as entry_proof', async () => {
  const answer = await honest();
  const value = copy(answer);
  const entry = (value.proof['entries'] as Array<Record<string, unknown>>)[0]!;
  entry['value_hex'] = Buffer.from(JSON.stringify({ balance: 9_000_000, nonce: 3, tx_count: 4 })).toString('hex');
  refusedWith('entry_proof', () => verifyProvenRead({ ...value, balance: 9_000_000 }, trustedFour, { kind: 'account' }));

  const sibling = copy(answer);
  const proof = (sibling.proof['entries'] as Array<{ proof: { siblings: string[] } }>)[0]!.proof;
  assert.ok(proof.siblings.length > 0);
  proof.siblings[0] = '0x' + 'ab'.repeat(32);
  refusedWith('entry_proof', () => verifyProvenRead(sibling, trustedFour, { kind: 'account' }));

  const absent = copy(answer);
  const e = (absent.proof['entries'] as Array<Record<string, unknown>>)[0]!;
  e['exists'] = false;
  e['value_hex'] = null;
  refusedWith('entry_proof', () => verifyProvenRead({ ...absent, balance: 0, nonce: 0, tx_count: 0 }, trustedFour, { kind: 'account' }));
});

test('an absent account proves zeros', async () => {
  const state = await stateOf({ 'acct/chain:aaaaaaaaaaaaaaa.human': '{"balance":1,"nonce":0,"tx_count":0}' });
  const header = headerOf({ chainId: CHAIN, height: 3, prevStateRoot: state.root, validators: FOUR });
  const address = 'chain:bbbbbbbbbbbbbbb.human';
  const answer = { address, balance: 0, nonce: 0, tx_count: 0, proof: { height: 2, state_root: state.root, entries: [await state.entry(`acct/${address}`)], header, certificate: certify(header, FOUR), validators: served(FOUR) } };
  const read = verifyProvenRead(answer, trustedFour, { kind: 'account' });
  assert.equal(read.entries[0]!.exists, false);
  refusedWith('answer_field', () => verifyProvenRead({ ...answer, balance: 1 }, trustedFour, { kind: 'account' }));
});

test('a header field changed after signing is refused as block_hash', async () => {
  const answer = copy(await honest());
  (answer.proof['header'] as Record<string, unknown>)['timestamp'] = 1;
  refusedWith('block_hash', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
});

test('a header that does not carry the proof state root is refused as prev_state_root', async () => {
  const answer = copy(await honest());
  const other = await stateOf({ x: 'y' });
  const header = headerOf({ chainId: CHAIN, height: 8, prevStateRoot: other.root, validators: FOUR });
  answer.proof['header'] = header;
  answer.proof['certificate'] = certify(header, FOUR);
  refusedWith('prev_state_root', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
});

test('heights that do not line up are refused as height', async () => {
  const answer = copy(await honest());
  answer.proof['height'] = 6;
  refusedWith('height', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
});

test('dropped precommits leaving 2/3 or less are refused; duplicates count once', async () => {
  const two = await honest({ signers: FOUR.slice(0, 2) });
  refusedWith('trusted_power', () => verifyProvenRead(two, trustedFour, { kind: 'account' }));
  const answer = copy(await honest());
  const cert = answer.proof['certificate'] as { precommits: unknown[] };
  cert.precommits = [cert.precommits[0], cert.precommits[0], cert.precommits[0], cert.precommits[1]];
  refusedWith('trusted_power', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
});

test('exactly 2/3 of the power is not enough', async () => {
  const three = makeSigners([10, 10, 10], 20);
  const trusted = { chainId: CHAIN, validators: sortValidators(three) };
  const exact = await provenAccount({ chainId: CHAIN, height: 7, set: three, signers: three.slice(0, 2) });
  refusedWith('trusted_power', () => verifyProvenRead(exact, trusted, { kind: 'account' }));
  const more = await provenAccount({ chainId: CHAIN, height: 7, set: three });
  assert.equal(verifyProvenRead(more, trusted, { kind: 'account' }).commit.signedPower, 30n);
});

test('forged precommits do not count', async () => {
  const answer = copy(await honest());
  const cert = answer.proof['certificate'] as { precommits: Array<{ signature: string }> };
  cert.precommits[0]!.signature = cert.precommits[1]!.signature;
  cert.precommits[2]!.signature = 'ab'.repeat(3309);
  refusedWith('trusted_power', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
  // A precommit naming another round or block does not count either.
  const other = copy(await honest());
  const c2 = other.proof['certificate'] as { precommits: Array<Record<string, unknown>> };
  c2.precommits[0]!['round'] = 1;
  c2.precommits[1]!['block_hash'] = '0x' + '11'.repeat(32);
  refusedWith('trusted_power', () => verifyProvenRead(other, trustedFour, { kind: 'account' }));
});

test('a header of another chain is refused as chain_id, even when well signed', async () => {
  const answer = await provenAccount({ chainId: 'another-chain', height: 7, set: FOUR });
  refusedWith('chain_id', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
});

test('a swapped set (other keys, header and certificate remade) is refused as trusted_power', async () => {
  const impostors = makeSigners([10, 10, 10, 10], 100);
  const answer = await provenAccount({ chainId: CHAIN, height: 7, set: impostors });
  refusedWith('trusted_power', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
  // The honest header served with a swapped list: the list does not hash to the header's.
  const honestAnswer = copy(await honest());
  honestAnswer.proof['validators'] = served(impostors);
  refusedWith('validators_hash', () => verifyProvenRead(honestAnswer, trustedFour, { kind: 'account' }));
});

test('a set change signed by 1/3 or less of the trusted power is refused', async () => {
  const fresh = makeSigners([10, 10, 10], 50, 'n');
  // v0 stays (10 of the trusted 40 = 1/4), three new validators join.
  const changed: TestSigner[] = [FOUR[0]!, ...fresh];
  const answer = await provenAccount({ chainId: CHAIN, height: 7, set: changed });
  refusedWith('trusted_power', () => verifyProvenRead(answer, trustedFour, { kind: 'account' }));
  // Exactly 1/3 of the trusted power is not more than 1/3.
  const three = makeSigners([10, 10, 10], 20);
  const trusted = { chainId: CHAIN, validators: sortValidators(three) };
  const exact = await provenAccount({ chainId: CHAIN, height: 7, set: [three[0]!, ...fresh] });
  refusedWith('trusted_power', () => verifyProvenRead(exact, trusted, { kind: 'account' }));
});

test('an honest set change (a validator joins) is followed, then answers of the new set verify', async () => {
  const joiner = makeSigners([30], 60, 'j')[0]!;
  const grown = [...FOUR, joiner];
  const answer = await provenAccount({ chainId: CHAIN, height: 7, set: grown });
  const read = verifyProvenRead(answer, trustedFour, { kind: 'account' });
  assert.equal(read.commit.setChanged, true);
  assert.deepEqual(read.trusted.validators.map((v) => v.address), sortValidators(grown).map((v) => v.address));
  // The next answer is decided by the set now trusted.
  const later = await provenAccount({ chainId: CHAIN, height: 9, set: grown });
  assert.equal(verifyProvenRead(later, read.trusted, { kind: 'account' }).commit.setChanged, false);
  // But the new set's own signers must hold more than 2/3 of it: v0, v1, v2 sign (30 of 70).
  const thin = await provenAccount({ chainId: CHAIN, height: 7, set: grown, signers: FOUR.slice(0, 3) });
  refusedWith('served_power', () => verifyProvenRead(thin, trustedFour, { kind: 'account' }));
});

test('the trust level is a parameter: 1/3 for clients, 2/3 where value moves', async () => {
  const joiner = makeSigners([30], 60, 'j')[0]!;
  const grown = [...FOUR, joiner];
  // v0, v1 and the joiner sign: 50 of 70 served (> 2/3), 20 of 40 trusted (> 1/3, not > 2/3).
  const answer = await provenAccount({ chainId: CHAIN, height: 7, set: grown, signers: [FOUR[0]!, FOUR[1]!, joiner] });
  assert.equal(verifyProvenRead(answer, trustedFour, { kind: 'account', trustLevel: ONE_THIRD }).commit.setChanged, true);
  refusedWith('trusted_power', () => verifyProvenRead(answer, trustedFour, { kind: 'account', trustLevel: TWO_THIRDS }));
  // §72: a client that certifies only with its own set refuses any change here.
  const p = answer['proof'] as Record<string, unknown>;
  refusedWith('validator_set', () => verifyCommit({ header: p['header'], certificate: p['certificate'], validators: p['validators'] }, trustedFour, { trustLevel: TWO_THIRDS, allowSetChange: false }));
});

test('next_validators of a certified header must hash to its next_validators_hash', async () => {
  const joiner = makeSigners([30], 60, 'j')[0]!;
  const grown = [...FOUR, joiner];
  const answer = await provenAccount({ chainId: CHAIN, height: 7, set: FOUR, next: grown });
  const p = answer['proof'] as Record<string, unknown>;
  const commit = verifyCommit({ header: p['header'], certificate: p['certificate'], validators: p['validators'] }, trustedFour, { trustLevel: TWO_THIRDS, allowSetChange: false });
  assert.deepEqual(nextValidatorsOf(commit.header, served(grown)).map((v) => v.address), sortValidators(grown).map((v) => v.address));
  refusedWith('next_validators_hash', () => nextValidatorsOf(commit.header, served(FOUR)));
});

test('records: a scalar field shared with the stored record must be equal', async () => {
  const state = await stateOf({ 'staking/node/chain:v0.node': JSON.stringify({ address: 'chain:v0.node', jailed_until: 12, commission_bps: { $big: '500' } }) });
  const header = headerOf({ chainId: CHAIN, height: 3, prevStateRoot: state.root, validators: FOUR });
  const proof = { height: 2, state_root: state.root, entries: [await state.entry('staking/node/chain:v0.node')], header, certificate: certify(header, FOUR), validators: served(FOUR) };
  const answer = { address: 'chain:v0.node', jailed_until: 12, commission_bps: 500, jailed: false, stake_human: '1 COIN', proof };
  verifyProvenRead(answer, trustedFour);
  refusedWith('answer_field', () => verifyProvenRead({ ...answer, jailed_until: 0 }, trustedFour));
  refusedWith('answer_field', () => verifyProvenRead({ ...answer, commission_bps: 400 }, trustedFour));
});

test('the trust anchor is a genesis whose hash the client pinned', () => {
  const genesis = { chain_id: CHAIN, genesis_time: 1, validators: FOUR.map((v) => ({ address: v.address, public_key: v.public_key, stake: String(v.power) })), accounts: [], params: {} };
  const pinned = sha3Hex0x(canonicalJson(genesis));
  const trusted = trustFromGenesis(genesis, pinned);
  assert.equal(validatorsHash(trusted.validators), validatorsHash(sortValidators(FOUR)));
  refusedWith('genesis_hash', () => trustFromGenesis({ ...genesis, chain_id: 'other' }, pinned));
});

test('malformed answers are refused as shape, never thrown as TypeError', async () => {
  const answer = await honest();
  refusedWith('shape', () => verifyProvenRead({ balance: 1 }, trustedFour));
  refusedWith('shape', () => verifyProvenRead({ ...answer, proof: { ...answer.proof, entries: [] } }, trustedFour));
  refusedWith('shape', () => verifyProvenRead({ ...answer, proof: { ...answer.proof, validators: [{ address: 'x' }] } }, trustedFour));
  refusedWith('shape', () => parseHeader({ chain_id: CHAIN }));
});
