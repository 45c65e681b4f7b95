import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { MissingTransactions, proposedBlockCodec } from './block-codec.js';
import { decodeTxRelay, encodeTxRelay, parseTxRequest } from './envelope.js';
import { FetchedTxs } from './fetched-txs.js';
import { hashOfCanonical } from '../tx/hash.js';
import type { ProposedBlock } from '../chain/chain.js';

const COIN = 10n ** 12n;
const alice = wallet(1);
const bob = wallet(2);

type EncodedTx = { origin: string; hash?: string; canonical: string };

async function proposal(): Promise<{ block: ProposedBlock; encoded: Record<string, unknown> & { txs: EncodedTx[] } }> {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), 0);
  const block = await f.chain.propose(0, 'chain:v0.node', 1_800_000_000_000);
  const encoded = JSON.parse(JSON.stringify(proposedBlockCodec(f.chain).encode(block))) as Record<string, unknown> & { txs: EncodedTx[] };
  return { block, encoded };
}

test('a proposal carries each transaction as its canonical text; a node that has it pending reuses it', async () => {
  const { block, encoded } = await proposal();
  assert.equal(encoded.txs[0]!.canonical, block.txs[0]!.canonical);
  // The proposer's own chain has the transaction pending: decoding returns that very object.
  const f = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), 0);
  const decoded = proposedBlockCodec(f.chain).decode(encoded) as ProposedBlock | undefined;
  assert.ok(decoded);
  assert.equal(decoded.txs[0], f.chain.pendingTx(block.txs[0]!.hash));
});

test('a node without the transaction rebuilds it from the text; non-canonical or malformed text is refused', async () => {
  const { block, encoded } = await proposal();
  const empty = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  const codec = proposedBlockCodec(empty.chain);
  const decoded = codec.decode(encoded) as ProposedBlock | undefined;
  assert.ok(decoded);
  assert.equal(decoded.txs[0]!.hash, block.txs[0]!.hash);
  assert.equal(decoded.txs[0]!.value, 3n);
  assert.equal(decoded.txs[0]!.from, alice.address);
  // Same fields, other key order: not the canonical text, so its hash would not be the id.
  const body = JSON.parse(block.txs[0]!.canonical) as Record<string, unknown>;
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()));
  assert.equal(codec.decode({ ...encoded, txs: [{ origin: 'signed', canonical: reordered }] }), undefined);
  assert.equal(codec.decode({ ...encoded, txs: [{ origin: 'signed', canonical: '{not json' }] }), undefined);
  assert.equal(codec.decode({ ...encoded, txs: [{ origin: 'signed', body }] }), undefined);
  assert.equal(codec.decode({ ...encoded, txs: [{ origin: 'minted', canonical: block.txs[0]!.canonical }] }), undefined);
});

test('a transaction id must match its text, and a pending copy is only reused for the same text', async () => {
  const { block, encoded } = await proposal();
  const tx = encoded.txs[0]!;
  assert.equal(tx.hash, block.txs[0]!.hash, 'the id travels with the text');
  const other = '0x' + 'ab'.repeat(32);
  const empty = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  const codec = proposedBlockCodec(empty.chain);
  assert.equal(codec.decode({ ...encoded, txs: [{ ...tx, hash: other }] }), undefined, 'an id that is not the hash of the text');
  assert.equal(codec.decode({ ...encoded, txs: [{ ...tx, hash: 'nope' }] }), undefined, 'a malformed id');
  const { hash: _, ...withoutId } = tx;
  assert.equal((codec.decode({ ...encoded, txs: [withoutId] }) as ProposedBlock | undefined)?.txs[0]!.hash, block.txs[0]!.hash, 'WAL entries from before ids travelled still decode');

  // A node with the transaction pending is sent its id with some other text: not reused, refused.
  const holder = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  await holder.chain.admit(signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), 0);
  const forged = tx.canonical.replace('"value":3', '"value":4');
  assert.notEqual(forged, tx.canonical);
  assert.equal(proposedBlockCodec(holder.chain).decode({ ...encoded, txs: [{ ...tx, canonical: forged }] }), undefined);
});

test('a compact proposal names transactions by id: a holder decodes it from its mempool, anyone else learns which ids it lacks', async () => {
  const { block, encoded } = await proposal();
  const f = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), 0);
  const compact = JSON.parse(JSON.stringify(proposedBlockCodec(f.chain, { compact: true }).encode(block))) as typeof encoded;
  assert.deepEqual(compact.txs, [{ origin: 'signed', hash: block.txs[0]!.hash }]);
  assert.equal((proposedBlockCodec(f.chain).decode(compact) as ProposedBlock).txs[0], f.chain.pendingTx(block.txs[0]!.hash));

  const fetched = new FetchedTxs();
  const empty = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  const codec = proposedBlockCodec(empty.chain, { fetched });
  const missing = codec.decode(compact);
  assert.ok(missing instanceof MissingTransactions);
  assert.deepEqual(missing.missing, [{ origin: 'signed', hash: block.txs[0]!.hash }]);
  assert.deepEqual(missing.header, block.header, 'the header, for the replica to match against the signed block hash');
  // Ids the header does not commit to are not worth waiting for: malformed.
  assert.equal(codec.decode({ ...compact, txs: [{ origin: 'signed', hash: '0x' + 'cd'.repeat(32) }] }), undefined);
  // The text, once fetched, is filed under the hash this node computes, and the proposal decodes.
  fetched.put(hashOfCanonical(block.txs[0]!.canonical), { origin: 'signed', canonical: block.txs[0]!.canonical });
  const decoded = codec.decode(compact) as ProposedBlock;
  assert.equal(decoded.txs[0]!.hash, block.txs[0]!.hash);
  assert.equal(decoded.txs[0]!.value, 3n);
  // A fetched text of the other origin does not stand in, and a malformed id is refused outright.
  assert.ok(codec.decode({ ...compact, txs: [{ origin: 'system', hash: block.txs[0]!.hash }] }) instanceof MissingTransactions);
  assert.equal(codec.decode({ ...compact, txs: [{ origin: 'signed', hash: 'nope' }] }), undefined);
  assert.equal(codec.decode({ ...compact, txs: [{ origin: 'signed', hash: block.txs[0]!.hash, canonical: 7 }] }), undefined);
});

test('fetched texts are bounded by size, oldest first; a transaction request is a non-empty list of hashes', () => {
  const fetched = new FetchedTxs(25);
  const [a, b] = ['0x' + 'aa'.repeat(32), '0x' + 'bb'.repeat(32)];
  fetched.put(a, { origin: 'signed', canonical: '{"n":"aaaaaaaaaa"}' });
  fetched.put(b, { origin: 'signed', canonical: '{"n":"bbbbbbbbbb"}' });
  assert.equal(fetched.get(a), undefined, 'evicted to stay within the bound');
  assert.equal(fetched.get(b)?.canonical, '{"n":"bbbbbbbbbb"}');
  assert.equal(fetched.size, 1);
  // A wrong origin filed first does not hide the right one.
  const both = new FetchedTxs();
  both.put(b, { origin: 'system', canonical: '{"n":"bbbbbbbbbb"}' });
  both.put(b, { origin: 'signed', canonical: '{"n":"bbbbbbbbbb"}' });
  assert.equal(both.get(b, 'signed')?.origin, 'signed');
  assert.equal(both.get(b, 'system')?.origin, 'system');

  const h = '0x' + 'ab'.repeat(32);
  assert.deepEqual(parseTxRequest({ hashes: [h] }), [h]);
  assert.equal(parseTxRequest({ hashes: [] }), null);
  assert.equal(parseTxRequest({ hashes: ['0xAB'] }), null);
  assert.equal(parseTxRequest({ hashes: Array.from({ length: 20_001 }, () => h) }), null);
  assert.equal(parseTxRequest(null), null);
});

test('a relayed transaction is its origin byte and canonical text', () => {
  const text = '{"from":"a","to":"b"}';
  assert.deepEqual(decodeTxRelay(encodeTxRelay('signed', text)), { origin: 'signed', canonical: text });
  assert.deepEqual(decodeTxRelay(encodeTxRelay('system', text)), { origin: 'system', canonical: text });
  assert.equal(decodeTxRelay(new Uint8Array([7, 123, 125])), null);
  assert.equal(decodeTxRelay(new Uint8Array([0, 0xff, 0xfe])), null, 'invalid UTF-8');
});
