import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { makeChain, signTransfer, VALIDATOR_KEY, wallet } from '../../test/helpers/chain-fixture.js';
import type { Chain } from '../../kernel/chain/chain.js';
import { LocalPrivValidator } from '../../kernel/consensus/index.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { definePlugin } from '../../kernel/host/plugin.js';
import type { PluginDefinition } from '../../kernel/host/plugin.js';
import { signsAlone } from '../../kernel/node/block-production.js';
import { SoloProducer } from '../../kernel/node/solo-producer.js';
import { auditChain, type AuditSource } from './replay-audit.js';

/*
 * A stored chain made by the one-validator producer (so every block has its commit certificate),
 * replayed into a fresh chain on the same genesis: sound, it audits to its head; tampered (a state
 * root, a certificate, a transaction) or made by a build that mints without saying so, the audit
 * names the first height and the check that breaks.
 */

const V0 = 'chain:v0.node';
const alice = wallet(171);
const bob = wallet(172);
const accounts = [{ address: alice.address, balance: 1_000_000_000n }];
const BLOCKS = 5;

/** A state plugin with a bug: at height 3 it credits bob 7 ucoin out of nothing, with no event. */
const silentMint: PluginDefinition<unknown, unknown> = definePlugin({
  name: 'silent-mint',
  kind: 'state',
  description: 'test plugin: a build that creates coins',
  register(api) {
    api.hooks.beginBlock.tapPromise(api.name, async (ctx) => {
      if (ctx.block.height === 3) await ctx.accounts.credit(bob.address, 7n);
    });
  },
}) as PluginDefinition<unknown, unknown>;

async function produce(chain: Chain, blocks: number): Promise<void> {
  const signer = new LocalPrivValidator({ address: V0, keyPair: VALIDATOR_KEY, provider: nobleProvider });
  const solo = new SoloProducer({ chain, signer, pace: { blockMs: 1, emptyBlockMs: 5 }, log: pino({ level: 'silent' }), alone: (h) => signsAlone(chain, V0, h), handover: () => undefined });
  const done = new Promise<void>((resolve) => chain.on('committed', (c) => c.block.header.height >= blocks && resolve()));
  solo.start();
  for (let nonce = 1; nonce <= 3; nonce++) await chain.admit(signTransfer(alice, { to: bob.address, value: 1_000 * nonce, nonce }), 0);
  await done;
  await solo.stop();
}

async function storedChain(plugins: PluginDefinition<unknown, unknown>[] = []): Promise<Chain> {
  const { chain } = await makeChain({ plugins, accounts });
  await produce(chain, BLOCKS);
  return chain;
}

/** The source with one answer changed, as a tampered store would give it. */
function tampered(chain: Chain, change: Partial<AuditSource>): AuditSource {
  const store = chain.queries;
  return { head: store.head, getBlock: (h) => store.getBlock(h), getTx: (x) => store.getTx(x), getCommit: (h) => store.getCommit(h), ...change };
}

const replayChain = async (plugins: PluginDefinition<unknown, unknown>[] = []): Promise<Chain> => (await makeChain({ plugins, accounts })).chain;

test('a sound stored chain replays to its head: every state root, certificate and the supply check out', async () => {
  const source = await storedChain();
  assert.ok(source.head.height >= BLOCKS);
  const seen: number[] = [];
  const result = await auditChain({ source: source.queries, replay: await replayChain(), provider: nobleProvider, plugins: [], onHeight: (h) => seen.push(h) });
  assert.deepEqual(result, { audited: source.head.height, head: source.head.height });
  assert.equal(seen.length, source.head.height);
  assert.ok((await source.queries.getBlock(1))!.tx_hashes.length + (await source.queries.getBlock(2))!.tx_hashes.length > 0, 'the audited blocks carry transfers');
});

test('a tampered state root, certificate or transaction is reported at its height, with the check that broke', async () => {
  const source = await storedChain();
  const root = await auditChain({ source: tampered(source, { getBlock: async (h) => { const b = await source.queries.getBlock(h); return b && h === 3 ? { ...b, state_root: `0x${'ab'.repeat(32)}` } : b; } }), replay: await replayChain(), provider: nobleProvider, plugins: [] });
  assert.deepEqual([root.divergence?.height, root.divergence?.check, root.audited], [3, 'state_root', 2]);
  assert.match(root.divergence!.message, /gives state root 0x[0-9a-f]{64}; the store recorded 0xabab/);

  const cert = await auditChain({ source: tampered(source, { getCommit: (h) => source.queries.getCommit(h === 2 ? 1 : h) }), replay: await replayChain(), provider: nobleProvider, plugins: [] });
  assert.deepEqual([cert.divergence?.height, cert.divergence?.check], [2, 'certificate']);

  const none = await auditChain({ source: tampered(source, { getCommit: async (h) => (h === 4 ? undefined : source.queries.getCommit(h)) }), replay: await replayChain(), provider: nobleProvider, plugins: [] });
  assert.deepEqual([none.divergence?.height, none.divergence?.check], [4, 'certificate']);

  const withTx = (await Promise.all([1, 2, 3].map((h) => source.queries.getBlock(h)))).find((b) => b!.tx_hashes.length > 0)!;
  const txs = await auditChain({ source: tampered(source, { getBlock: async (h) => { const b = await source.queries.getBlock(h); return b && h === withTx.header.height ? { ...b, tx_hashes: b.tx_hashes.slice(1) } : b; } }), replay: await replayChain(), provider: nobleProvider, plugins: [] });
  assert.deepEqual([txs.divergence?.height, txs.divergence?.check], [withTx.header.height, 'block']);
  assert.match(txs.divergence!.message, /tx_count|tx_root/);
});

test('a build that mints without an event keeps its state roots consistent, and fails the supply check at that height', async () => {
  const source = await storedChain([silentMint]);
  const result = await auditChain({ source: source.queries, replay: await replayChain([silentMint]), provider: nobleProvider, plugins: [] });
  assert.deepEqual([result.divergence?.height, result.divergence?.check, result.audited], [3, 'supply', 2]);
  assert.match(result.divergence!.message, /created: 7/);
});

test('a replay with another build (the mint missing) diverges at the first state root it changes', async () => {
  const source = await storedChain([silentMint]);
  const result = await auditChain({ source: source.queries, replay: await replayChain(), provider: nobleProvider, plugins: [] });
  // Without the plugin the replayed chain's genesis differs, or block 3's root does: either way the audit stops there or earlier.
  assert.ok(result.divergence !== undefined && result.divergence.height <= 3, JSON.stringify(result));
});
