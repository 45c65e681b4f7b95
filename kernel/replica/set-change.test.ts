import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { LoopbackHub } from '../../test/helpers/loopback-hub.js';
import { setChanger } from '../../test/helpers/set-changer.js';
import { testReplica } from '../../test/helpers/test-replica.js';
import type { Chain } from '../chain/chain.js';
import { SET_CHANGE_DELAY } from '../state/validator-history.js';
import { toHex } from '../codec/hex.js';
import { certificateFromJson, decodeConsensusMessage } from '../consensus/index.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import type { ValidatorUpdate } from '../context/contexts.js';
import { proposedBlockCodec } from './block-codec.js';
import { openEnvelope, TAG_CONSENSUS } from './envelope.js';
import type { Replica } from './replica.js';

/*
 * Four replicas on real timers, linked in process. A, B and C are the genesis set; D runs with its
 * key outside it. Block 3 adds D and block 7 takes A out: every node derives from its own chain
 * that D signs from height 5 and A up to height 8 (SET_CHANGE_DELAY), and nobody restarts.
 */

const names = ['a', 'b', 'c', 'd'] as const;
const keys = names.map((_, i) => nobleProvider.keygen(new Uint8Array(32).fill(160 + i)));
const address = (i: number): string => `chain:${names[i]}.node`;
const update = (i: number, power: bigint): ValidatorUpdate => ({ address: address(i), public_key: toHex(keys[i]!.publicKey), power });
const GENESIS = [0, 1, 2].map((i) => ({ address: address(i), key: keys[i]!, stake: '10' }));
const ADDS_D = 3;
const REMOVES_A = 7;
const SCRIPT = new Map([
  [ADDS_D, [update(3, 10n)]],
  [REMOVES_A, [update(0, 0n)]],
]);
const TOP = 12;

async function until(what: string, done: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a follower whose key a validator update adds signs from the height it takes effect, a removed validator stops, and the chain keeps finalising', async () => {
  assert.equal(SET_CHANGE_DELAY, 2, 'the heights below assume changes count two heights on');
  const hub = new LoopbackHub();
  const chains: Chain[] = [];
  const replicas: Replica[] = [];
  for (let i = 0; i < names.length; i++) {
    const { chain } = await makeChain({ validators: GENESIS, plugins: [setChanger(SCRIPT).plugin] });
    chains.push(chain);
    replicas.push(testReplica({ chain, transport: hub.transport(address(i)), signer: { address: address(i), keyPair: keys[i]! }, pace: { blockMs: 20, emptyBlockMs: 100 }, liveMs: 1000 }));
  }
  try {
    for (const r of replicas) await r.start();
    await until(`every node at height ${TOP}`, () => chains.every((c) => c.head.height >= TOP));
  } finally {
    for (const r of replicas) await r.stop();
  }

  for (const c of chains) assert.equal((await c.queries.getBlock(TOP))!.hash, (await chains[0]!.queries.getBlock(TOP))!.hash, 'one chain');
  // Who voted at which heights, from what each node sent.
  const codec = proposedBlockCodec(chains[0]!);
  const votedAt = new Map<string, number[]>();
  for (const { from, bytes } of hub.sent) {
    const env = openEnvelope(bytes);
    const m = env?.tag === TAG_CONSENSUS ? decodeConsensusMessage(env.body, codec) : null;
    if (m?.kind !== 'vote') continue;
    assert.equal(m.vote.vote.validator, from);
    votedAt.set(from, [...(votedAt.get(from) ?? []), m.vote.vote.height]);
  }
  const d = votedAt.get(address(3)) ?? [];
  assert.equal(Math.min(...d), ADDS_D + SET_CHANGE_DELAY, 'D follows without voting until its height, then votes');
  assert.ok(d.includes(TOP), 'and keeps voting');
  const a = votedAt.get(address(0)) ?? [];
  assert.equal(Math.max(...a), REMOVES_A + SET_CHANGE_DELAY - 1, 'A votes up to its last height, then only follows');

  // From height 9 the set is B, C, D: a certificate needs all three, D among them.
  const signersOf = async (h: number): Promise<string[]> => {
    const bytes = await chains[0]!.queries.getCommit(h);
    return certificateFromJson(JSON.parse(new TextDecoder().decode(bytes!)))!.precommits.map((p) => p.vote.validator);
  };
  for (let h = REMOVES_A + SET_CHANGE_DELAY; h <= TOP; h++) assert.deepEqual(await signersOf(h), [address(1), address(2), address(3)], `certificate of ${h}`);
  for (let h = 1; h < ADDS_D + SET_CHANGE_DELAY; h++) assert.ok(!(await signersOf(h)).includes(address(3)), `no precommit of D at ${h}`);
});
