import { Type } from '@sinclair/typebox';
import { accountKeysStateKey, countedPage, defineRoute, isAddress, isKeyDerivedAddress, notFound, pageAnswer, pageQuery, toPage, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { currentKeys } from './keys.js';
import { latestRequest, readConfig } from './recovery.js';
import { configs, derivedKeys, guards, guardsCounts, requests, RecoveryRequestSchema } from './store.js';

/** Any text in the path: what is no address is answered as an address nobody uses (404, or nothing configured). */
const AddrParams = Type.Object({ addr: Type.String({ minLength: 1, description: 'a chain address' }) });

export const identityRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/identity/:addr',
  summary: 'the keys that may sign as main keys of an address, and how many changes they went through (decisions.md §35)',
  params: AddrParams,
  responses: {
    200: Type.Object({ address: Type.String(), keys: Type.Array(Type.String({ description: 'lowercase hex ML-DSA-65 public key' })), version: Type.Integer({ minimum: 0 }) }),
    404: 'an address that is neither key-derived nor registered',
  },
  // decisions.md §84: the account's main keys and the derived key identity remembers for it.
  proves: (req) => [accountKeysStateKey(req.params.addr), ...(isAddress(req.params.addr) ? [derivedKeys.stateKey(req.params.addr)] : [])],
});

export const recoveryRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/identity/recovery/:addr',
  summary: "an account's guardian recovery: its guardians, threshold and timelock, the open request and the latest closed one",
  params: AddrParams,
  responses: {
    200: Type.Object({
      address: Type.String(),
      configured: Type.Boolean(),
      guardians: Type.Array(Type.String()),
      threshold: Type.Integer({ minimum: 0 }),
      timelock: Type.Integer({ minimum: 0 }),
      request: Type.Union([RecoveryRequestSchema, Type.Null()], { description: 'the open request' }),
      last_request: Type.Union([RecoveryRequestSchema, Type.Null()], { description: 'the latest closed request' }),
    }),
  },
  proves: (req) => (isAddress(req.params.addr) ? [configs.stateKey(req.params.addr), requests.stateKey(req.params.addr)] : []),
});

export const guardianOfRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/identity/guardian-of/:addr',
  summary: 'the accounts an address guards, by address (an addition to part 1)',
  params: AddrParams,
  query: pageQuery({ default: 100, cap: 100 }),
  responses: { 200: Type.Object({ address: Type.String(), ...pageAnswer('identities', Type.String({ description: 'an owner the address guards' })).properties }) },
});

/** The routes the plugin lists in its definition, for the gateway to forward under these declarations (part 1: served by both). */
export const IDENTITY_ROUTES = [identityRoute, recoveryRoute, guardianOfRoute] as const;

export function identityRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  routes.serve(identityRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const address = req.params.addr;
      const set = await currentKeys(ctx, address);
      // Registered: an account, a validator, or a record a plugin keeps (a .human name, .node,
      // .vault, .agent, .app), as the kernel judges a plain transfer's recipient. A record acts
      // through its owner's keys (§19): none is bound to the record itself, so its `keys` is empty.
      if (!isKeyDerivedAddress(address) && set.keys.length === 0 && (await ctx.recipients.problem(address)) !== null) throw notFound(`${address} is neither a key-derived nor a registered address`);
      // A used key-derived address with nothing stored signs with its derived key (decisions.md
      // §35): state does not hold it (the address is its hash), the transactions it signed do.
      if (set.keys.length === 0 && isKeyDerivedAddress(address)) {
        const derived = await s.chain.derivedKeyOf(address);
        if (derived !== undefined) return { address, keys: [derived], version: 0 };
      }
      return { address, keys: set.keys, version: set.version };
    }),
  );
  routes.serve(recoveryRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const address = req.params.addr;
      const config = await readConfig(ctx, address);
      const latest = await latestRequest(ctx, address);
      return {
        address,
        configured: config !== undefined,
        guardians: config?.guardians ?? [],
        threshold: config?.threshold ?? 0,
        timelock: config?.timelock ?? 0,
        request: latest?.status === 'open' ? latest : null,
        last_request: latest !== undefined && latest.status !== 'open' ? latest : null,
      };
    }),
  );
  // One page of the guardian's own entries, and their count from its record: anyone may name an
  // address as their guardian, so the list can be long, and a request reads only its page.
  routes.serve(guardianOfRoute, (req) => {
    const { limit, offset } = toPage(req.query);
    const guardian = req.params.addr;
    return s.query.run(plugin, async (ctx) => {
      const total = isAddress(guardian) ? ((await guardsCounts.get(ctx.store, guardian)) ?? 0) : 0;
      const identities = offset >= total ? [] : (await guards.scan(ctx.store, { prefix: [guardian], limit: offset + limit })).slice(offset).map((e) => e.key[1]);
      return { address: guardian, ...countedPage('identities', identities, total, limit, offset) };
    });
  });
}
