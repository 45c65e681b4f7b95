import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { getJson, postJson, until } from '../helpers/node-process.js';
import { canonicalJson } from '../../kernel/codec/json.js';
import { sha3, sha3Hex0x } from '../../kernel/crypto/hash.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { toHex } from '../../kernel/codec/hex.js';
import { precommitMessage, sortValidators, validatorsHash, type LightValidator } from '../../kernel/light-client/index.js';
import { utf8Bytes } from '../../kernel/codec/utf8.js';
import { connect, generatePhrase, keyFromFile, keyFromPhrase, keyFromSeed, LightClientError, type BalanceUpdate, type ChainClient, type LightClientCheck } from '../../sdk/index.js';

/**
 * The client SDK on one devnet, as a wallet uses it (issue 36): the §4 vector, a ch-tx-v4
 * transfer and an operation confirmed through `waitFinal`, a balance subscription seeing the
 * credit, proven reads checked against the pinned genesis; then a gateway that lies (a proxy in
 * front of the real one rewriting `prove=true` answers) is caught every time, the error naming
 * the check; and an honest set change, a validator joining by stake, is followed.
 */
const COIN = 1_000_000;
const ALPHA = 'chain:sdk-alpha.node';

type Answer = Record<string, unknown> & { proof: Proof };
interface Proof {
  height: number;
  state_root: string;
  entries: Array<{ key: string; exists: boolean; value_hex: string | null; proof: { leaf: unknown; siblings: string[] } }>;
  header: Record<string, unknown>;
  certificate: { height: number; round: number; block_hash: string; precommits: Array<Record<string, unknown>> };
  validators: Array<{ address: string; public_key: string; power: number }>;
}

describe('client SDK on a devnet', () => {
  let net: TestDevnet;
  let client: ChainClient;
  let genesisHash: string;
  let proxy: Server;
  let proxyUrl = '';
  /** What the lying proxy does to a `prove=true` answer now. */
  let lie: ((a: Answer) => void) | undefined;
  const alice = keyFromPhrase(generatePhrase());
  const bob = keyFromSeed(sha3('sdk-it-bob'));

  before(async () => {
    net = await startTestDevnet({ env: { POLL_NODE_INTERVAL_MS: '250' } });
    // The trust anchor: the genesis file the validators were started with, hashed here, not asked of a server.
    genesisHash = sha3Hex0x(canonicalJson(JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8'))));
    client = connect({ url: net.gatewayUrl, genesisHash });
    proxy = createServer((req, res) => {
      void (async () => {
        const upstream = await fetch(`${net.gatewayUrl}${req.url ?? '/'}`);
        let text = await upstream.text();
        if (lie && (req.url ?? '').includes('prove=true') && upstream.status === 200) {
          const answer = JSON.parse(text) as Answer;
          lie(answer);
          text = JSON.stringify(answer);
        }
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
      })().catch((e: unknown) => res.writeHead(502).end(JSON.stringify({ error: String(e) })));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise((r) => proxy?.close(r));
    await net?.stop();
  });

  test('§4 vector and a key file; a ch-tx-v4 transfer confirmed by waitFinal; a balance subscription sees the credit', async () => {
    assert.equal(keyFromSeed('01'.repeat(32)).address, 'chain:307f4559431e680.human');
    const v0 = keyFromFile(join(net.dir, 'keys', 'validator-0.json'));
    assert.equal(v0.address, net.validatorKey(0).file.address);
    const funded = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
    assert.equal(funded.status, 200, JSON.stringify(funded.body));
    assert.equal((await client.waitFinal(funded.body.tx_hash as string)).status, 'confirmed');

    const updates: BalanceUpdate[] = [];
    const sub = client.subscribe({ balances: [bob.address], onBalance: (b) => updates.push(b) });
    try {
      await until('the first balance push', async () => (updates.length > 0 ? true : undefined));
      assert.equal(updates[0]!.balance, 0);
      const sent = await client.transfer(alice, { to: bob.address, value: 2 * COIN });
      assert.equal(sent.status, 'pending');
      const tx = await client.waitFinal(sent.tx_hash);
      assert.deepEqual([tx.status, tx.signature_version, tx.value, tx.from], ['confirmed', 'v4', 2 * COIN, alice.address]);
      const credit = await until('the credit pushed', async () => updates.find((u) => u.balance === 2 * COIN));
      assert.equal(credit.address, bob.address);
      // Two transfers at once take consecutive nonces.
      const [a, b] = await Promise.all([client.transfer(alice, { to: bob.address, value: 1 }), client.transfer(alice, { to: bob.address, value: 1 })]);
      assert.deepEqual([(await client.waitFinal(a.tx_hash)).status, (await client.waitFinal(b.tx_hash)).status], ['confirmed', 'confirmed']);
    } finally {
      sub.close();
    }
  });

  test('an operation built from the node\'s description (stake), signed v4 and confirmed; a refusal carries the node\'s status and message', async () => {
    const staked = await client.operation(alice, 'stake', { amount: 10 * COIN });
    const tx = await client.waitFinal(staked.tx_hash);
    assert.deepEqual([tx.status, tx.type, tx.signature_version], ['confirmed', 'stake', 'v4']);
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/staking/info/${alice.address}`)).body.stake, 10 * COIN);
    await assert.rejects(client.operation(alice, 'stake', { amount: 10_000_000 * COIN }), (e: unknown) => (e as { status?: number }).status === 400);
  });

  test('proven reads: an account and a record check against the pinned genesis; a wrong pin is refused', async () => {
    const plain = (await getJson(`${net.rpcUrls[0]}/api/v1/accounts/${alice.address}`)).body;
    // The proven state is one block behind the head (decisions.md §84), so the stake just sent may
    // not be in it yet: the proven count catches up with the plain one once a later block certifies it.
    const acct = await until('the proven account catching up', async () => {
      const r = await client.provenAccount(alice.address);
      return r.answer.tx_count === plain.tx_count ? r : undefined;
    });
    assert.equal(acct.answer.address, alice.address);
    assert.ok(acct.height > 0);
    // A proven read is of the state one block behind the head (decisions.md §84): the stake shows once a later block certifies it.
    const info = await until('the stake proven', async () => {
      const r = await client.proven.record(`/api/v1/staking/info/${alice.address}`);
      return r.answer.stake === 10 * COIN ? r : undefined;
    });
    assert.ok(info.height >= 1);
    const wrong = connect({ url: net.gatewayUrl, genesisHash: `0x${'ab'.repeat(32)}` });
    await assert.rejects(wrong.provenAccount(alice.address), (e: unknown) => e instanceof LightClientError && e.check === 'genesis_hash');
  });

  test('a lying gateway is caught every time, naming the check: balance, value, sibling, header field, dropped or forged precommits, another chain id, a swapped set, a set change signed by at most 1/3', async () => {
    const liar = (): ChainClient => connect({ url: proxyUrl, genesisHash });
    const flipHex = (h: string, at = h.length - 1): string => h.slice(0, at) + (h[at] === '0' ? '1' : '0') + h.slice(at + 1);
    const rehash = (p: Proof): void => {
      const hash = sha3Hex0x(canonicalJson(p.header));
      p.certificate.block_hash = hash;
      for (const pc of p.certificate.precommits) pc.block_hash = hash;
    };
    const fakes = [1, 2, 3, 4].map((i) => ({ keys: nobleProvider.keygen(sha3(`sdk-liar-${i}`)), address: `chain:liar-${i}.node` }));
    /** Replaces the served set and its signatures: `signers` sign the rewritten header with their keys. */
    const servedBy = (p: Proof, signers: Array<{ address: string; keys: { publicKey: Uint8Array; secretKey: Uint8Array } }>): void => {
      const set: LightValidator[] = sortValidators(signers.map((s) => ({ address: s.address, public_key: toHex(s.keys.publicKey), power: 10_000n * BigInt(COIN) })));
      p.validators = set.map((v) => ({ address: v.address, public_key: v.public_key, power: Number(v.power) }));
      p.header.validators_hash = validatorsHash(set);
      p.header.next_validators_hash = validatorsHash(set);
      rehash(p);
      const chainId = String(p.header.chain_id);
      p.certificate.precommits = signers.map((s) => ({
        type: 'precommit',
        height: p.certificate.height,
        round: p.certificate.round,
        block_hash: p.certificate.block_hash,
        validator: s.address,
        signature: toHex(nobleProvider.sign(utf8Bytes(precommitMessage(chainId, p.certificate.height, p.certificate.round, p.certificate.block_hash, s.address)), s.keys.secretKey)),
      }));
    };
    const v0 = net.validatorKey(0);
    /** The first entry that holds bytes (a record read also proves keys that are absent). */
    const present = (a: Answer): Proof['entries'][number] => a.proof.entries.find((e) => e.exists)!;
    const lies: Array<[string, LightClientCheck, (a: Answer) => void]> = [
      ['balance', 'answer_field', (a) => void (a.balance = (a.balance as number) + 1)],
      ['value', 'entry_proof', (a) => {
        const e = present(a);
        e.value_hex = flipHex(e.value_hex!);
      }],
      ['sibling', 'entry_proof', (a) => {
        const e = present(a);
        e.proof.siblings[0] = flipHex(e.proof.siblings[0]!);
      }],
      ['header field', 'block_hash', (a) => void (a.proof.header.timestamp = (a.proof.header.timestamp as number) + 1)],
      ['dropped precommits', 'trusted_power', (a) => void (a.proof.certificate.precommits = a.proof.certificate.precommits.slice(0, 1))],
      ['forged precommits', 'trusted_power', (a) => a.proof.certificate.precommits.forEach((p) => (p.signature = flipHex(String(p.signature), 10)))],
      ['another chain id', 'chain_id', (a) => {
        a.proof.header.chain_id = 'another-chain';
        rehash(a.proof);
      }],
      ['a swapped set', 'trusted_power', (a) => servedBy(a.proof, fakes)],
      // validator-0's real key signs the forged header with three strangers: 1/4 of the trusted power.
      ['a set change signed by 1/4 of the trusted power', 'trusted_power', (a) => servedBy(a.proof, [{ address: 'chain:validator-0.node', keys: v0.keys }, ...fakes.slice(0, 3)])],
    ];
    for (const [what, check, rewrite] of lies) {
      lie = rewrite;
      try {
        await assert.rejects(liar().provenAccount(alice.address), (e: unknown) => {
          assert.ok(e instanceof LightClientError, `${what}: ${String(e)}`);
          assert.equal(e.check, check, `${what}: ${e.message}`);
          return true;
        });
        // A record's fields are checked the same way (a stake record has no balance to lie about).
        if (what !== 'balance') await assert.rejects(liar().proven.record(`/api/v1/staking/info/${alice.address}`), LightClientError, `${what} on a record read`);
      } finally {
        lie = undefined;
      }
    }
    // The same proxy telling the truth passes.
    assert.equal((await liar().provenAccount(alice.address)).answer.address, alice.address);
  });

  test('an honest set change is followed: a validator joining by stake moves the client to the new set', async () => {
    const consensus = nobleProvider.keygen(sha3('sdk-it-alpha-consensus'));
    const reg = await client.operation(alice, 'register_node', { name: 'sdk-alpha', owner: alice.address, consensus_public_key: toHex(consensus.publicKey) });
    assert.equal((await client.waitFinal(reg.tx_hash)).status, 'confirmed');
    // It holds min_stake of 40 010 COIN: the genesis four still decide, the set has five.
    await until('the joined set deciding blocks', async () => {
      const tip = (await getJson(`${net.gatewayUrl}/api/v1/blocks/latest`)).body.block as Record<string, unknown>;
      const commit = (await getJson(`${net.gatewayUrl}/api/v1/blocks/${String(tip.height)}/commit`)).body;
      return (commit.validators as Array<{ address: string }>).some((v) => v.address === ALPHA) ? true : undefined;
    }, 60_000);
    const fresh = connect({ url: net.gatewayUrl, genesisHash });
    assert.equal((await fresh.proven.trust()).validators.length, 4);
    const read = await fresh.provenAccount(alice.address);
    assert.equal(read.setChanged, true);
    const trusted = await fresh.proven.trust();
    assert.deepEqual(trusted.validators.map((v) => v.address).sort(), [ALPHA, 'chain:validator-0.node', 'chain:validator-1.node', 'chain:validator-2.node', 'chain:validator-3.node']);
    // From the new set on, answers keep verifying, and the old client follows too.
    assert.equal((await fresh.provenAccount(bob.address)).setChanged, false);
    assert.equal((await client.provenAccount(bob.address)).setChanged, true);
  });
});
