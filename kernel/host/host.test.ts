import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definePlugin, type PluginDefinition } from './plugin.js';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { accountsReader } from '../state/accounts.js';

const alice = wallet(1);
const COIN = 1_000_000n;

/** A state plugin that records, per block, the order in which plugins ran beginBlock. */
function recorder(name: string, log: string[]): PluginDefinition {
  return definePlugin({
    name,
    kind: 'state',
    description: 'records beginBlock order',
    register(api) {
      api.hooks.beginBlock.tapPromise(api.name, async (ctx) => {
        log.push(`${api.name}@${ctx.height}`);
        ctx.store.setRecord('seen', ctx.height);
      });
    },
  });
}

test('tap order follows the network plugin list, not registration order', async () => {
  const log: string[] = [];
  const a = recorder('alpha', log);
  const b = recorder('beta', log);
  // Catalogue lists alpha first; the network config orders beta first.
  const f = await makeChain({ plugins: [a, b], pluginConfig: [{ name: 'beta' }, { name: 'alpha' }] });
  await f.block();
  assert.deepEqual(log, ['beta@1', 'alpha@1']);
});

test('each plugin writes only its own namespace', async () => {
  const f = await makeChain({ plugins: [recorder('alpha', []), recorder('beta', [])] });
  await f.block();
  assert.ok(await f.chain.queries.state.get('alpha/seen'));
  assert.ok(await f.chain.queries.state.get('beta/seen'));
});

test('a service plugin may not tap consensus hooks', async () => {
  const svc = definePlugin({
    name: 'svc',
    kind: 'service',
    description: 'tries to change state',
    register(api) {
      api.hooks.beginBlock.tapPromise(api.name, async () => undefined);
    },
  });
  await assert.rejects(makeChain({ plugins: [svc] }), /service plugin and may tap only committed, routes, rpcMethods and query/);
});

test('registration is refused after boot and under another name', async () => {
  let saved: Parameters<PluginDefinition['register']>[0] | undefined;
  const p = definePlugin({ name: 'late', kind: 'state', description: 'keeps its api', register(api) { saved = api; } });
  await makeChain({ plugins: [p] });
  assert.throws(() => saved!.hooks.beginBlock.tapPromise('late', async () => undefined), /registration is closed after boot/);
  const liar = definePlugin({ name: 'liar', kind: 'state', description: 'taps as someone else', register(api) { api.hooks.beginBlock.tapPromise('other', async () => undefined); } });
  await assert.rejects(makeChain({ plugins: [liar] }), /not an enabled plugin/);
});

test('dependencies must be enabled and listed first', async () => {
  const base = recorder('base', []);
  const dep = definePlugin({ name: 'dep', kind: 'state', description: 'needs base', dependencies: ['base'], register() {} });
  await assert.rejects(makeChain({ plugins: [dep] }), /"dep" depends on "base", which is not enabled/);
  await assert.rejects(makeChain({ plugins: [dep, base], pluginConfig: [{ name: 'dep' }, { name: 'base' }] }), /"base" must be listed before it/);
  await makeChain({ plugins: [base, dep], pluginConfig: [{ name: 'base' }, { name: 'dep' }] });
});

test('two handlers for one executeTx key are refused', async () => {
  const mk = (name: string) => definePlugin({ name, kind: 'state', description: 'x', register(api) { api.hooks.executeTx.for('chain:system.same').tapPromise(api.name, async () => undefined); } });
  await assert.rejects(makeChain({ plugins: [mk('one'), mk('two')] }), /cannot add a second handler/);
});

test('event declarations: a malformed type, or a type two plugins declare, stops start-up naming them', async () => {
  const declaring = (name: string, type: string) => definePlugin({ name, kind: 'state', description: 'declares an event', events: [{ type, description: 'x', fields: ['a'] }], register() {} });
  await assert.rejects(makeChain({ plugins: [declaring('one', 'Not-Snake')] }), /"one" declares event type "Not-Snake", which is not lower_snake_case/);
  await assert.rejects(makeChain({ plugins: [declaring('one', 'credited'), declaring('two', 'credited')] }), /event type "credited" is declared by both "one" and "two"/);
  await makeChain({ plugins: [declaring('one', 'credited'), declaring('two', 'debited')] });
});

test('plugin options are validated with the field named', async () => {
  const { Type } = await import('@sinclair/typebox');
  const p = definePlugin<{ n: number }>({ name: 'opt', kind: 'state', description: 'x', optionsSchema: Type.Object({ n: Type.Integer({ minimum: 1, default: 3 }) }), register() {} });
  await assert.rejects(makeChain({ plugins: [p as PluginDefinition], pluginConfig: [{ name: 'opt', options: { n: 0 } }] }), /plugins\.opt\.options\.n/);
});

/**
 * Activation at height H: a plugin that marks every block it runs in, from block 3 on.
 * Two independent nodes fed the same blocks must agree on every state root, and the
 * mark must be absent before H and present from H.
 */
test('a plugin switched on at height H behaves identically on every node', async () => {
  const marker = definePlugin({
    name: 'marker',
    kind: 'state',
    description: 'marks each block it runs in, from its activation height on',
    register(api) {
      api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
        ctx.store.setRecord(`active-at-${ctx.height}`, true);
        return result;
      });
      api.hooks.checkTx.tapPromise(api.name, async () => undefined);
    },
  });
  const mk = () => makeChain({ plugins: [marker], pluginConfig: [{ name: 'marker', activation_height: 3 }], accounts: [{ address: alice.address, balance: COIN }] });
  const n1 = await mk();
  const n2 = await mk();
  for (let h = 1; h <= 5; h++) {
    if (h % 2 === 0) {
      const body = signTransfer(alice, { to: wallet(3).address, value: h, nonce: h / 2 });
      await n1.chain.admit(body, 0);
    }
    const p = await n1.chain.propose(0, 'chain:v0.node', 1_800_000_000_000 + h * 1000);
    assert.equal(await n1.chain.validate(p), null);
    assert.equal(await n2.chain.validate(p), null, `node 2 accepts block ${h}`);
    const r1 = await n1.chain.finalize(p);
    const r2 = await n2.chain.finalize(p);
    assert.equal(r1.state_root, r2.state_root, `same state root at height ${h}`);
    const active = (await n1.chain.queries.state.get(`marker/active-at-${h}`)) !== undefined;
    assert.equal(active, h >= 3, `marker active at ${h}`);
  }
  assert.equal((await accountsReader(n1.chain.queries.state).get(alice.address)).nonce, 2n);
});

test('a plugin named after a kernel state namespace is refused at start', async () => {
  for (const name of ['acct', 'acctkey', 'params', 'vset', 'auth', 'kernel']) {
    await assert.rejects(makeChain({ plugins: [recorder(name, [])] }), (e: Error) => {
      assert.match(e.message, new RegExp(`"${name}" is a kernel state namespace`));
      return true;
    });
  }
});

test('a listed but disabled state plugin is registered, available, and runs only once the schedule in state says so', async () => {
  const log: string[] = [];
  const f = await makeChain({ plugins: [recorder('alpha', log)], pluginConfig: [{ name: 'alpha', enabled: false } as never] });
  assert.equal(f.host.stateOf('alpha', 1), 'available');
  await f.block();
  assert.deepEqual(log, []);
  assert.equal(f.host.inactiveProblem('alpha', 2)?.status, 403);
  assert.match(f.host.inactiveProblem('alpha', 2)!.message, /plugin "alpha" is available, not active/);
  f.host.applySchedule([{ name: 'alpha', activation_height: 3, retire_height: 5 }]);
  assert.equal(f.host.stateOf('alpha', 2), 'scheduled');
  await f.block();
  await f.block();
  await f.block();
  await f.block();
  assert.deepEqual(log, ['alpha@3', 'alpha@4'], 'runs from its activation height up to, not including, its retirement');
  assert.equal(f.host.stateOf('alpha', 5), 'retired');
});
