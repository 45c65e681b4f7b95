import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { labelledWallet, signOperation, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, spawnChainProcess, until, waitConfirmed, type ChainProcess } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { freePorts } from '../helpers/cluster.js';
import { WsClient } from '../../plugins/gateway/testing/process.js';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { encodeConsensusMessage, makeEvidence, signVote, evidenceToJson, type ConsensusEvidence } from '../../kernel/consensus/index.js';
import { parseHex } from '../../kernel/codec/hex.js';
import { TcpTransport } from '../../kernel/p2p/tcp/index.js';
import { envelope, TAG_CONSENSUS, TAG_EVIDENCE } from '../../kernel/replica/envelope.js';
import { chainEvidence } from '../../kernel/replica/evidence-pool.js';
import { ChainStore } from '../../kernel/store/chain-store.js';
import { openChainStores } from '../../kernel/store/chain-stores.js';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import { readFileSync } from 'node:fs';
import { heldSupply, recordedSum, RewardModel } from '../helpers/supply-model.js';
import { canonicalJson } from '../../kernel/codec/json.js';
import { sha3Hex0x } from '../../kernel/crypto/hash.js';
import { LightClientError, trustFromGenesis, verifyCommit, verifyProvenRead, ONE_THIRD, type TrustedValidators } from '../../kernel/light-client/index.js';

/**
 * Staking on a real 4-validator devnet (configs/devnet.json: min_stake 10 COIN, unbonding 20
 * blocks, rewards every 10, jail 20 blocks, blocks_per_year 1 000), through the gateway and the
 * validators' RPC as a client would. One devnet serves every scenario, in order: a fifth validator
 * registered, staked, started as its own process and signing; a delegation to it; a genesis
 * validator made to double-sign (this file signs two conflicting votes with its key file and hands
 * them to the validators over the P2P protocol as any peer could); the fifth validator unstaking
 * and leaving; and at the end every node, the fifth included, holds the same blocks and roots.
 * Along the way a light client (kernel/light-client, decisions.md §84–85) trusting only the
 * genesis validators checks proven reads from nodes and gateway, and follows the set change.
 */
const COIN = 1_000_000;
const MIN_STAKE = 10 * COIN;
const ALPHA = 'chain:alpha.node';
const CHEATER = 'chain:validator-3.node';
const BASE_APY = 1_200n;
const GENESIS_APY = 2_400n;
let clock = Date.now();
const nonce = (): number => ++clock;

describe('staking on a real devnet', () => {
  let net: TestDevnet;
  let socket: WsClient;
  let alphaNode: ChainProcess | undefined;
  let harness: TcpTransport | undefined;
  const alice = labelledWallet('staking-alice');
  const bob = labelledWallet('staking-bob');
  // The fifth validator's own key file, as `chain keys generate --node alpha` writes one.
  const alphaKey = makeKeyFile(nobleProvider, sha3('staking-alpha-consensus'), 'alpha');
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  /** Every node's RPC: the devnet's four and, once started, the fifth validator's. */
  const everyRpc = (): string[] => [...net.rpcUrls, ...(alphaNode ? [alphaNode.url] : [])];
  const height = async (url = rpc()): Promise<number> => (await getJson(`${url}/health`)).body.height as number;
  const validatorsOn = async (url: string): Promise<Array<Record<string, unknown>>> => (await getJson(`${url}/api/v1/validators`)).body.validators as Array<Record<string, unknown>>;
  const post = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = await postJson(`${net.gatewayUrl}${path}`, body);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    const tx = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', `${path}: ${JSON.stringify(tx)}`);
    return tx;
  };
  const sign = (w: Wallet, actor: string, target: string, body: Record<string, unknown>, value = 0) => signOperation(w, { actor, target, value, nonce: nonce(), body });
  /** What each confirmed staking change does to the positions the supply check models, by height. */
  const changes: Array<{ height: number; apply: (m: RewardModel, h: number) => void }> = [];
  const happened = (tx: Record<string, unknown>, apply: (m: RewardModel, h: number) => void): void => void changes.push({ height: tx.block as number, apply });
  let slashBurned = 0n;
  /** The light client's trust: the genesis validators, then whatever set it followed. */
  let trusted: TrustedValidators;
  const proven = async (url: string, kind: 'account' | 'record' = 'record'): Promise<{ body: Record<string, unknown>; height: number }> => {
    const r = await getJson(url);
    assert.equal(r.status, 200, `${url}: ${JSON.stringify(r.body)}`);
    const read = verifyProvenRead(r.body, trusted, { kind, trustLevel: ONE_THIRD });
    trusted = read.trusted;
    return { body: r.body, height: read.height };
  };

  before(async () => {
    net = await startTestDevnet();
    socket = await WsClient.connect(`${net.gatewayUrl.replace('http', 'ws')}/ws`);
    for (const w of [alice, bob]) {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await waitConfirmed(rpc(), f.body.tx_hash as string);
    }
  });
  after(async () => {
    socket?.close();
    await harness?.stop();
    await alphaNode?.stop();
    await net?.stop();
  });

  test('the staking parameters and their devnet values are listed; genesis validators are nodes with their stake', async () => {
    const params = (await getJson(`${rpc()}/api/v1/governance/params`)).body;
    const text = JSON.stringify(params);
    for (const key of ['min_stake', 'unbonding_blocks', 'base_apy_bps', 'genesis_apy_bps', 'reward_interval_blocks', 'blocks_per_year', 'max_commission_bps', 'slash_fraction_double_sign_bps', 'slash_reward_fraction_bps', 'slash_double_vote_bps', 'jail_blocks']) {
      assert.ok(text.includes(key), `${key} is listed`);
    }
    const nodes = (await getJson(`${net.gatewayUrl}/api/v1/nodes`)).body;
    assert.equal(nodes.total, 4);
    const v0 = (await getJson(`${rpc()}/api/v1/nodes/chain:validator-0.node`)).body;
    assert.equal(v0.owner, net.validatorKey(0).file.address);
    assert.equal(v0.stake, 10_000 * COIN);
  });

  test('proven reads (§84–85): accounts and records through node and gateway check against the genesis validators; /blocks/:height/commit; 404 above the tip; 400 for a bad prove', async () => {
    // The trust anchor: the genesis the validators run, its hash pinned here, its keys those of the key files.
    const genesis = JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')) as GenesisDoc;
    trusted = trustFromGenesis(genesis, sha3Hex0x(canonicalJson(genesis)));
    for (let i = 0; i < 4; i++) assert.ok(trusted.validators.some((v) => v.public_key === net.validatorKey(i).file.public_key), `validator-${i}'s key is trusted`);
    for (const base of [rpc(0), rpc(2), net.gatewayUrl]) {
      const account = await proven(`${base}/api/v1/accounts/${alice.address}?prove=true`, 'account');
      assert.equal(account.body.address, alice.address);
      const entries = (account.body.proof as { entries: Array<{ key: string; exists: boolean }> }).entries;
      assert.deepEqual(entries.map((e) => [e.key, e.exists]), [[`acct/${alice.address}`, true]]);
      // An account never seen: its absence proves zeros.
      const nobody = await proven(`${base}/api/v1/accounts/chain:000000000000000.human?prove=true`, 'account');
      assert.equal(nobody.body.balance, 0);
      const node = await proven(`${base}/api/v1/nodes/chain:validator-0.node?prove=true`);
      assert.equal(node.body.stake, 10_000 * COIN);
      const info = await proven(`${base}/api/v1/staking/info/chain:validator-1.node?prove=true`);
      assert.equal(info.body.stake, 10_000 * COIN);
      await proven(`${base}/api/v1/identity/${alice.address}?prove=true`);
      await proven(`${base}/api/v1/sponsor/${alice.address}?prove=true`);
      await proven(`${base}/api/v1/identity/recovery/${alice.address}?prove=true`);
      // Without prove (or prove=false) nothing is attached; anything else is 400.
      assert.equal((await getJson(`${base}/api/v1/accounts/${alice.address}?prove=false`)).body.proof, undefined);
      assert.equal((await getJson(`${base}/api/v1/nodes/chain:validator-0.node`)).body.proof, undefined);
      for (const bad of ['yes', '1', 'TRUE', 'true&prove=true']) {
        const r = await getJson(`${base}/api/v1/accounts/${alice.address}?prove=${bad}`);
        assert.equal(r.status, 400, `prove=${bad}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.error as string, /prove must be true or false/);
      }
      // A lie the gateway or a node could tell is caught: here, a balance.
      const honest = (await getJson(`${base}/api/v1/accounts/${alice.address}?prove=true`)).body;
      assert.throws(() => verifyProvenRead({ ...honest, balance: (honest.balance as number) + 1 }, trusted, { kind: 'account' }), (e: unknown) => e instanceof LightClientError && e.check === 'answer_field');
    }
    // A committed height's header, certificate and set verify; the set is the same on every validator.
    const tip = await height();
    for (const base of [rpc(0), net.gatewayUrl]) {
      const commit = await getJson(`${base}/api/v1/blocks/${tip}/commit`);
      assert.equal(commit.status, 200, JSON.stringify(commit.body));
      assert.equal(commit.body.height, tip);
      const checked = verifyCommit(commit.body as never, trusted, { trustLevel: ONE_THIRD });
      assert.equal(checked.header.height, tip);
      const above = await getJson(`${base}/api/v1/blocks/${tip + 1000}/commit`);
      assert.equal(above.status, 404, JSON.stringify(above.body));
    }
    const hashes = await Promise.all(net.rpcUrls.map(async (url) => (await getJson(`${url}/api/v1/blocks/${tip}`)).body));
    for (const b of hashes) assert.deepEqual([b.validators_hash, b.next_validators_hash], [hashes[0]!.validators_hash, hashes[0]!.next_validators_hash]);
    assert.equal(hashes[0]!.validators_hash, hashes[0]!.next_validators_hash, 'no set change pending');
  });

  test('a fifth .node registered with a new key and staked through the RPC (unstake before the lock refused), its process started: it joins the set on every node and signs; the chain keeps finalising', async () => {
    const before = (await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.balance as number;
    const dup = await postJson(`${rpc()}/api/v1/nodes/register`, sign(alice, alice.address, 'chain:system.node', { name: 'validator-1', owner: alice.address }));
    assert.equal(dup.status, 409, JSON.stringify(dup.body));
    assert.match(dup.body.error as string, /chain:validator-1\.node is already registered/);
    const registered = await post('/api/v1/nodes/register', sign(alice, alice.address, 'chain:system.node', { name: 'alpha', owner: alice.address, consensus_public_key: alphaKey.file.public_key }));
    happened(registered, (m, h) => m.open('stake:alpha', { amount: BigInt(MIN_STAKE), paid: h, rate: BASE_APY }));
    assert.equal((await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.balance, before - MIN_STAKE - 100, 'min_stake bonded and 100 gas');
    const node = (await getJson(`${net.gatewayUrl}/api/v1/nodes/${ALPHA}`)).body;
    assert.equal(node.owner, alice.address);
    assert.equal(node.stake, MIN_STAKE);
    assert.equal(node.consensus_public_key, alphaKey.file.public_key);
    // Stake more (signed by the owner for the node): the whole stake is locked again.
    const staked = await post('/api/v1/staking/stake', sign(alice, ALPHA, 'chain:system.stake', { address: ALPHA, amount: 20 * COIN }, 20 * COIN));
    happened(staked, (m, h) => m.add('stake:alpha', h, 20n * BigInt(COIN)));
    const info = (await getJson(`${net.gatewayUrl}/api/v1/staking/info/${ALPHA}`)).body;
    assert.deepEqual({ stake: info.stake, unlock_height: info.unlock_height, jailed: info.jailed }, { stake: 30 * COIN, unlock_height: (staked.block as number) + 20, jailed: false });
    // Unstake before the lock: refused at admission, nothing moved.
    const balance = (await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.balance;
    const early = await postJson(`${rpc()}/api/v1/staking/unstake`, sign(alice, ALPHA, 'chain:system.stake', { address: ALPHA }));
    assert.equal(early.status, 400, JSON.stringify(early.body));
    assert.match(early.body.error as string, new RegExp(`stake of chain:alpha\\.node is locked until height ${info.unlock_height as number}`));
    assert.equal((await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.balance, balance);
    assert.equal((await getJson(`${rpc()}/api/v1/staking/info/${ALPHA}`)).body.stake, 30 * COIN);

    // Its process: a node started with its key, outside the genesis set, seeded with the devnet's
    // P2P listeners. It catches up, and signs from the height the set change took effect.
    writeKeyFile(join(net.dir, 'keys', 'alpha.json'), alphaKey.file);
    const [p2p] = await freePorts(1);
    alphaNode = await spawnChainProcess(
      ['node', '--network', 'devnet', '--data-dir', join(net.dir, 'node-alpha'), '--genesis', join(net.dir, 'genesis.json'), '--key', join(net.dir, 'keys', 'alpha.json'), '--rpc-port', '0', '--p2p-port', String(p2p), '--seeds', net.p2pAddresses.join(',')],
      // The network's variables first: its genesis state depends on them (the IBC operator list).
      { ...net.networkEnv, CHAIN_LOG_LEVEL: 'info', CHAIN_MIN_VALIDATORS: '4', CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '300', CHAIN_RPC_RATE_LIMIT: '100000', CHAIN_RPC_TRUSTED_IPS: '127.0.0.1' },
      /"port":(\d+).*node RPC listening/,
    );
    for (const url of everyRpc()) {
      const set = await until(`alpha in the set on ${url}`, async () => {
        const vs = await validatorsOn(url);
        return vs.find((v) => v.address === ALPHA && v.stake === 30 * COIN) ? vs : undefined;
      }, 90_000);
      assert.equal(set.length, 5);
    }
    await until('the fifth node signing', async () => (alphaNode!.logs.some((l) => l.includes('this node is in the validator set from this height: signing')) ? true : undefined), 90_000);
    // Its precommits in committed blocks' certificates, as the nodes count them.
    const signed = await until('alpha\'s precommits in commit certificates', async () => {
      for (const url of everyRpc()) {
        const alpha = (await validatorsOn(url)).find((v) => v.address === ALPHA);
        if (alpha && (alpha.votes_cast as number) > 0) return alpha;
      }
      return undefined;
    }, 90_000);
    assert.ok((signed.last_active as number) > 0);
    // GET /api/v1/validators, through the gateway: part 1's fields for every validator.
    for (const v of await validatorsOn(net.gatewayUrl)) {
      for (const f of ['stake', 'trust_score', 'blocks_proposed', 'votes_cast', 'last_active']) assert.equal(typeof v[f], 'number', `${String(v.address)}.${f}`);
      assert.ok((v.trust_score as number) >= 0 && (v.trust_score as number) <= 1);
    }
    // The gateway told its socket clients when the new set was in force, with what changed.
    const update = await socket.next('validator_update with alpha', (m) => m.type === 'validator_update' && JSON.stringify((m.data as Record<string, unknown>).changes ?? []).includes(ALPHA), 30_000);
    const data = update.data as { nodes: Array<Record<string, unknown>>; changes: Array<Record<string, unknown>>; effective_height: number; height: number };
    assert.ok(data.nodes.some((n) => n.address === ALPHA), 'nodes carries the new set');
    assert.equal(data.height, data.effective_height - 1);
    const h = await height(alphaNode.url);
    await until('the chain finalises past the set change on the fifth node', async () => ((await height(alphaNode!.url)) >= h + 3 ? true : undefined), 60_000);
  });

  test('the set change is in the headers (next_validators_hash first, then validators_hash) and the light client follows it to the grown set', async () => {
    const genesisSetHash = (await getJson(`${rpc()}/api/v1/blocks/1`)).body.validators_hash as string;
    const tip = await height();
    // The first header naming another next set, and the header after it deciding with that set.
    let announced: Record<string, unknown> | undefined;
    for (let h = 1; h <= tip && announced === undefined; h++) {
      const b = (await getJson(`${rpc()}/api/v1/blocks/${h}`)).body;
      if (b.next_validators_hash !== b.validators_hash) announced = b;
    }
    assert.ok(announced, 'a header announces the grown set');
    assert.equal(announced.validators_hash, genesisSetHash);
    const next = (await getJson(`${rpc(1)}/api/v1/blocks/${(announced.height as number) + 1}`)).body;
    assert.equal(next.validators_hash, announced.next_validators_hash);
    const commit = (await getJson(`${net.gatewayUrl}/api/v1/blocks/${next.height as number}/commit`)).body;
    assert.ok((commit.validators as Array<{ address: string }>).some((v) => v.address === ALPHA));
    // The client still trusts the genesis set: the first answer of the grown set moves it.
    assert.equal(trusted.validators.length, 4);
    const read = await proven(`${net.gatewayUrl}/api/v1/nodes/${ALPHA}?prove=true`);
    assert.equal(read.body.stake, 30 * COIN);
    assert.deepEqual(trusted.validators.map((v) => v.address).sort(), [ALPHA, 'chain:validator-0.node', 'chain:validator-1.node', 'chain:validator-2.node', 'chain:validator-3.node']);
    // And answers of the grown set keep verifying, from a node as from the gateway.
    await proven(`${rpc(3)}/api/v1/accounts/${alice.address}?prove=true`, 'account');
  });

  test('delegate to the new node, rewards split by commission at the reward height in exact integers, undelegate refused before the lock and paid in full after', async () => {
    const amount = 20 * COIN;
    const refusedToHuman = await postJson(`${rpc()}/api/v1/staking/delegate`, sign(bob, bob.address, alice.address, { delegator: bob.address, validator: alice.address, amount }, amount));
    assert.equal(refusedToHuman.status, 400);
    const tx = await post('/api/v1/staking/delegate', sign(bob, bob.address, 'chain:alpha.node', { delegator: bob.address, validator: 'chain:alpha.node', amount }, amount));
    const bonded = tx.block as number;
    happened(tx, (m, h) => m.open('delegation:bob', { amount: BigInt(amount), paid: h, rate: BASE_APY, commission: 1_000n }));
    const mine = (await getJson(`${rpc()}/api/v1/staking/my-delegations/${bob.address}`)).body;
    assert.equal((mine.delegations as Array<Record<string, unknown>>)[0]?.amount, amount);
    // The first reward height after bonding: a multiple of reward_interval_blocks (10).
    const payout = Math.ceil((bonded + 1) / 10) * 10;
    const rewards = await until(`rewards at ${payout}`, async () => {
      const r = (await getJson(`${rpc()}/api/v1/staking/rewards/${bob.address}`)).body.rewards as Array<Record<string, unknown>>;
      return r.length > 0 ? r : undefined;
    }, 60_000);
    const elapsed = BigInt(Math.min(payout - bonded, 10));
    const delegatorShare = (BigInt(amount) * 1_200n * 9_000n * elapsed) / (100_000_000n * 1_000n);
    const commission = (BigInt(amount) * 1_200n * 1_000n * elapsed) / (100_000_000n * 1_000n);
    assert.deepEqual({ height: rewards[0]!.height, source: rewards[0]!.source, amount: rewards[0]!.amount, paid_to: rewards[0]!.paid_to }, { height: payout, source: 'delegation', amount: Number(delegatorShare), paid_to: bob.address });
    const alphaRewards = (await getJson(`${rpc()}/api/v1/staking/rewards/chain:alpha.node?source=commission`)).body.rewards as Array<Record<string, unknown>>;
    const atPayout = alphaRewards.find((r) => r.height === payout);
    assert.equal(atPayout?.amount, Number(commission));
    assert.equal(atPayout?.paid_to, alice.address, 'a node\'s commission goes to its owner');

    const early = await postJson(`${rpc()}/api/v1/staking/undelegate`, sign(bob, bob.address, 'chain:alpha.node', { delegator: bob.address, validator: 'chain:alpha.node' }));
    assert.equal(early.status, 400);
    assert.match(early.body.error as string, /locked until height/);
    const unlock = (mine.delegations as Array<Record<string, unknown>>)[0]!.unlock_height as number;
    await until(`height ${unlock}`, async () => (((await getJson(`${rpc()}/health`)).body.height as number) >= unlock ? true : undefined), 90_000);
    const before = (await getJson(`${rpc()}/api/v1/accounts/${bob.address}`)).body.balance as number;
    const out = await post('/api/v1/staking/undelegate', sign(bob, bob.address, 'chain:alpha.node', { delegator: bob.address, validator: 'chain:alpha.node' }));
    happened(out, (m, h) => m.close('delegation:bob', h));
    const after = (await getJson(`${rpc()}/api/v1/accounts/${bob.address}`)).body.balance as number;
    assert.ok(after - before >= amount - (out.fee as number), 'the whole delegation came back, with what accrued since the last payout');
    assert.equal(((await getJson(`${rpc()}/api/v1/staking/my-delegations/${bob.address}`)).body.delegations as unknown[]).length, 0);
  });

  test('staking info answers zeros for an address with nothing bonded, and every staking list answers 200', async () => {
    const nobody = labelledWallet('staking-nobody');
    const info = (await getJson(`${net.gatewayUrl}/api/v1/staking/info/${nobody.address}`)).body;
    assert.deepEqual({ stake: info.stake, unlock_height: info.unlock_height, delegations_out: info.delegations_out, rewards_total: info.rewards_total, jailed: info.jailed }, { stake: 0, unlock_height: 0, delegations_out: 0, rewards_total: 0, jailed: false });
    for (const path of ['/api/v1/staking/validators', `/api/v1/staking/delegations/chain:validator-0.node`, `/api/v1/staking/my-delegations/${nobody.address}`, `/api/v1/staking/rewards/${nobody.address}`, '/api/v1/slashing/history', '/api/v1/nodes']) {
      const r = await getJson(`${rpc(2)}${path}`);
      assert.equal(r.status, 200, path);
      for (const f of ['total', 'limit', 'offset', 'has_more']) assert.ok(f in r.body, `${path} has ${f}`);
    }
  });

  test('a validator made to double-sign: the evidence its two votes make is included once, it is slashed (reporter paid, the rest burned), jailed with voting power 0, and back after jail_blocks', async (t) => {
    // Two prevotes for one (height, round) with different blocks, signed with validator-3's key
    // file, sent to every validator over the P2P protocol by a peer of this test's own, as votes:
    // for round 1 of the height after the next (a node buffers the next height's votes), so each
    // validator's consensus machine sees both and makes the evidence itself.
    const cheater = net.validatorKey(3);
    assert.equal(cheater.file.node_address, CHEATER);
    const status = (await getJson(`${rpc()}/status`)).body;
    const chainId = status.chain_id as string;
    harness = new TcpTransport({ provider: nobleProvider, nodeKey: nobleProvider.keygen(sha3('staking-evidence-harness')), chainId, genesisHash: parseHex(status.genesis_hash as string, 32)!, host: '127.0.0.1', port: 0, seeds: net.p2pAddresses });
    await harness.start();
    await until('the harness connected to every validator', async () => (harness!.peers().length >= 4 ? true : undefined), 30_000);
    const offence = (await height()) + 2;
    const vote = (fill: number) => signVote(nobleProvider, cheater.keys.secretKey, chainId, { type: 'prevote', height: offence, round: 1, blockHash: new Uint8Array(32).fill(fill), validator: CHEATER });
    const votes = [vote(1), vote(2)];
    const noBlocks = { encode: () => null, decode: () => undefined };
    for (const v of votes) harness.broadcast(envelope(TAG_CONSENSUS, encodeConsensusMessage({ kind: 'vote', vote: v }, noBlocks)));
    // One offence, one identity (validator, height, round, type), whichever pair proves it.
    const evidence: ConsensusEvidence = makeEvidence(votes[0]!, votes[1]!);
    const hash = chainEvidence(evidence).hash;
    const slashOf = async (): Promise<Record<string, unknown> | undefined> =>
      ((await getJson(`${rpc()}/api/v1/slashing/history`)).body.slashes as Array<Record<string, unknown>>).find((x) => x.evidence === hash);
    let slash: Record<string, unknown> | undefined;
    try {
      slash = await until('the slash from the votes', slashOf, 20_000);
    } catch {
      // The votes came after every node had left that height (a very slow machine): the same two
      // votes as evidence, which a node that saw them would gossip, prove the same offence.
      t.diagnostic(`the votes for height ${offence} arrived late; delivered as evidence instead`);
      harness.broadcast(envelope(TAG_EVIDENCE, evidenceToJson(evidence)));
      slash = await until('the slash from the evidence', slashOf, 60_000);
    }
    const at = slash.height as number;
    happened({ block: at }, (m) => {
      m.positions.get('stake:validator-3')!.amount -= BigInt(slash.amount as number);
      slashBurned += BigInt(slash.burned as number);
    });
    const slashed = (MIN_STAKE * 500) / 10_000; // slash_fraction_double_sign_bps of min_stake
    const reward = (slashed * 100) / 10_000; // slash_reward_fraction_bps of it
    // §24: the reporter is the owner of the proposer of the block that included the evidence.
    const proposer = (await getJson(`${rpc()}/api/v1/blocks/${at}`)).body.proposer as string;
    const reporter = (await getJson(`${rpc()}/api/v1/nodes/${proposer}`)).body.owner as string;
    assert.deepEqual(
      { validator: slash.validator, kind: slash.kind, offence_height: slash.offence_height, amount: slash.amount, reporter: slash.reporter, reporter_reward: slash.reporter_reward, burned: slash.burned, jailed_until: slash.jailed_until },
      { validator: CHEATER, kind: 'duplicate-vote', offence_height: offence, amount: slashed, reporter, reporter_reward: reward, burned: slashed - reward, jailed_until: at + 20 },
    );
    // Every node emits the same event in that block (each read once it has committed the block).
    for (const url of everyRpc()) {
      await until(`height ${at} on ${url}`, async () => ((await height(url)) >= at ? true : undefined), 60_000);
      const events = (await getJson(`${url}/api/v1/blocks/${at}/events`)).body.events as Array<{ type: string; data: Record<string, unknown> }>;
      assert.deepEqual(events.find((e) => e.type === 'validator_slashed')?.data, { validator: CHEATER, amount: slashed, reporter, reporter_reward: reward, burned: slashed - reward, jailed_until: at + 20, evidence: hash }, url);
    }
    // The gateway answers from whichever node it reads; wait for one that has the block.
    const jailed = await until('the gateway shows validator-3 jailed', async () => {
      const body = (await getJson(`${net.gatewayUrl}/api/v1/nodes/${CHEATER}`)).body;
      return body.jailed === true ? body : undefined;
    }, 30_000);
    assert.deepEqual({ stake: jailed.stake, jailed: jailed.jailed, jailed_until: jailed.jailed_until }, { stake: 10_000 * COIN - slashed, jailed: true, jailed_until: at + 20 });

    // Voting power 0 from the set-change delay on, on every node; the chain goes on without it.
    for (const url of everyRpc()) {
      await until(`validator-3 out of the set on ${url}`, async () => ((await validatorsOn(url)).some((v) => v.address === CHEATER) ? undefined : true), 60_000);
    }
    const out = await height();
    await until('blocks finalised while validator-3 is jailed', async () => ((await height(rpc(3))) >= out + 3 ? true : undefined), 60_000);
    // Delivered again after its block, as votes and as evidence: each offence applies once.
    for (const v of votes) harness.broadcast(envelope(TAG_CONSENSUS, encodeConsensusMessage({ kind: 'vote', vote: v }, noBlocks)));
    harness.broadcast(envelope(TAG_EVIDENCE, evidenceToJson(evidence)));
    // Unjail before jail_blocks have passed: refused with the height it may return at.
    const early = await postJson(`${rpc()}/api/v1/nodes/${CHEATER}/unjail`, signOperation({ keys: cheater.keys, publicKeyHex: cheater.file.public_key }, { actor: CHEATER, target: 'chain:system.node', nonce: nonce(), body: { address: CHEATER } }));
    if ((await height()) + 1 < at + 20) {
      assert.equal(early.status, 400, JSON.stringify(early.body));
      assert.match(early.body.error as string, new RegExp(`jailed until height ${at + 20}`));
    }

    // Back by itself after jail_blocks, its stake (less the slash) still above min_stake.
    for (const url of everyRpc()) {
      await until(`validator-3 back in the set on ${url}`, async () => ((await validatorsOn(url)).find((v) => v.address === CHEATER)?.stake === 10_000 * COIN - slashed ? true : undefined), 90_000);
    }
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/staking/info/${CHEATER}`)).body.jailed, false);
    const all = (await getJson(`${rpc(2)}/api/v1/slashing/history`)).body;
    assert.equal(all.total, 1, 'one slash for one piece of evidence, delivered twice');
  });

  test('the fifth validator unstakes after the lock (refused before it: see its registration), returned in full to its owner; it leaves the set and the chain keeps finalising', async () => {
    const info = (await getJson(`${net.gatewayUrl}/api/v1/staking/info/${ALPHA}`)).body;
    const unstake = () => sign(alice, ALPHA, 'chain:system.stake', { address: ALPHA });
    await until(`height ${info.unlock_height as number}`, async () => ((await height()) >= (info.unlock_height as number) ? true : undefined), 90_000);
    const tx = await post('/api/v1/staking/unstake', unstake());
    happened(tx, (m, h) => m.close('stake:alpha', h));
    const events = (await getJson(`${rpc()}/api/v1/transactions/${tx.hash as string}`)).body.events as Array<{ type: string; data: Record<string, unknown> }>;
    assert.deepEqual(events.find((e) => e.type === 'unstaked')?.data, { address: ALPHA, amount: 30 * COIN, paid_to: alice.address }, 'the whole stake, to the owner');
    for (const url of everyRpc()) {
      await until(`alpha out of the set on ${url}`, async () => ((await validatorsOn(url)).some((v) => v.address === ALPHA) ? undefined : true), 60_000);
    }
    const left = await socket.next('validator_update with alpha leaving', (m) => m.type === 'validator_update' && ((m.data as Record<string, unknown>).changes as Array<Record<string, unknown>> | undefined)?.some((c) => c.address === ALPHA && String(c.power) === '0') === true, 30_000);
    assert.ok(!(left.data as { nodes: Array<Record<string, unknown>> }).nodes.some((n) => n.address === ALPHA));
    const h = await height();
    await until('the chain finalises after alpha left', async () => ((await height(alphaNode!.url)) >= h + 3 ? true : undefined), 60_000);

    // The staking socket methods: a signed stake sent as `{type: rpc, method: stake}`, and the set read back.
    const viaSocket = await socket.rpc('stake', sign(bob, bob.address, 'chain:system.stake', { address: bob.address, amount: MIN_STAKE }, MIN_STAKE));
    assert.equal(viaSocket.error, null, JSON.stringify(viaSocket));
    const socketTx = await waitConfirmed(rpc(), (viaSocket.result as Record<string, unknown>).tx_hash as string);
    assert.equal(socketTx.status, 'confirmed', JSON.stringify(socketTx));
    happened(socketTx, (m, h) => m.open('stake:bob', { amount: BigInt(MIN_STAKE), paid: h, rate: BASE_APY }));
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/staking/info/${bob.address}`)).body.stake, MIN_STAKE);
    const listedBySocket = await socket.rpc('get_validators');
    assert.deepEqual(((listedBySocket.result as { validators: Array<Record<string, unknown>> }).validators).map((v) => v.address).sort(), (await validatorsOn(rpc())).map((v) => v.address).sort());

    // ?type=staking lists the staking operations (decisions.md §34), through the gateway.
    const listed = (await getJson(`${net.gatewayUrl}/api/v1/transactions?type=staking&limit=200`)).body.transactions as Array<Record<string, unknown>>;
    const types = new Set(listed.map((t) => t.type));
    assert.deepEqual([...types].sort(), ['delegate', 'stake', 'undelegate', 'unstake']);
  });

  test('names burn their price and an NFT move its fee; a vault holds coins: all inside the supply check below', async () => {
    const carol = labelledWallet('staking-carol');
    const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: carol.address, public_key: carol.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    await waitConfirmed(rpc(), f.body.tx_hash as string);
    const burnedBefore = BigInt((await getJson(`${rpc()}/api/v1/gas/estimate`)).body.total_burned as number);
    const NAME = 'chain:carol-staking.human';
    // Node only (part 1): sent to a validator's RPC.
    const register = await postJson(`${rpc()}/api/v1/addresses/human`, sign(carol, carol.address, 'chain:system.name', { name: 'carol-staking', owner: carol.address }));
    assert.equal(register.status, 200, JSON.stringify(register.body));
    const named = await waitConfirmed(rpc(), register.body.tx_hash as string);
    assert.equal(named.status, 'confirmed', JSON.stringify(named));
    const moved = await post('/api/v1/nft/transfer', sign(carol, carol.address, NAME, { nft_address: NAME, from: carol.address, to: bob.address }));
    const VAULT = 'chain:carol-staking.vault';
    const vault = await post('/api/v1/nodes/register', sign(carol, carol.address, 'chain:system.node', { name: 'carol-staking', owner: carol.address, node_address: VAULT }));
    const r = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(carol, { to: VAULT, value: COIN, nonce: 1 }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const funding = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(funding.status, 'confirmed', JSON.stringify(funding));
    assert.equal((await getJson(`${rpc()}/api/v1/accounts/${VAULT}`)).body.balance, COIN);
    // Two prices of 10 COIN and the NFT fee of 100 ucoin, besides every fee burned meanwhile.
    const burned = BigInt((await getJson(`${rpc()}/api/v1/gas/estimate`)).body.total_burned as number) - burnedBefore;
    assert.ok(burned >= 2n * 10n * BigInt(COIN) + 100n, `burned ${burned}`);
    // The supply check waits for the fifth node to have applied these too.
    for (const tx of [named, moved, vault, funding]) happened(tx, () => {});
  });

  test('the chain never stalled and every node, the fifth included, holds the same block and state root at every height', async () => {
    const top = Math.min(...(await Promise.all(everyRpc().map((u) => height(u)))));
    assert.ok(top > 40, `height ${top}`);
    for (let h = 1; h <= top; h++) {
      const seen = await Promise.all(everyRpc().map(async (u) => (await getJson(`${u}/api/v1/blocks/${h}`)).body));
      for (const b of seen) assert.deepEqual({ hash: b.hash, state_root: b.state_root }, { hash: seen[0]!.hash, state_root: seen[0]!.state_root }, `height ${h}`);
    }
  });

  test('the supply over the whole run, to the ucoin: every balance (vaults included), stake and delegation a node holds = genesis + faucet credits + rewards (computed here) − fees, name prices and NFT fees burned − slashes burned', async () => {
    // The fifth node's own store, read once it has applied every change and stopped.
    const last = Math.max(...changes.map((c) => c.height));
    await until(`the fifth node past height ${last}`, async () => ((await height(alphaNode!.url)) > last ? true : undefined), 60_000);
    await alphaNode!.stop();
    const store = new ChainStore((await openChainStores(join(net.dir, 'node-alpha'))).kv);
    try {
      const meta = await store.load();
      const genesis = JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')) as GenesisDoc;
      const genesisSupply = [...genesis.accounts.map((a) => BigInt(a.balance)), ...genesis.validators.map((v) => BigInt(v.stake))].reduce((a, b) => a + b, 0n);
      const faucet = ((await getJson(`${rpc()}/api/v1/transactions?type=faucet&limit=200`)).body.transactions as Array<Record<string, unknown>>)
        .filter((t) => t.status === 'confirmed' && (t.block as number) <= meta.height)
        .reduce((sum, t) => sum + BigInt(t.value as number), 0n);
      assert.equal(faucet, 3n * 50n * BigInt(COIN), 'the three faucet credits of this run');
      // Rewards: configs/devnet.json's interval 10 and 1 000 blocks a year; genesis stakes at the genesis rate from height 0.
      const model = new RewardModel({ interval: 10, blocksPerYear: 1_000n });
      for (let i = 0; i < genesis.validators.length; i++) model.open(`stake:validator-${i}`, { amount: BigInt(genesis.validators[i]!.stake), paid: 0, rate: GENESIS_APY });
      for (let h = 1; h <= meta.height; h++) {
        model.begin(h);
        for (const c of changes) if (c.height === h) c.apply(model, h);
      }
      assert.equal(await recordedSum(store.state, 'staking/reward/', 'amount'), model.minted, 'the reward records hold what the formula mints');
      assert.equal(await recordedSum(store.state, 'staking/slash/', 'burned'), slashBurned);
      const held = await heldSupply(store.state);
      assert.ok(meta.total_burned > 0n && model.minted > 0n && slashBurned > 0n);
      assert.equal(held.total, genesisSupply + faucet + model.minted - meta.total_burned - slashBurned, `at height ${meta.height}`);
    } finally {
      await store.close();
    }
  });
});
