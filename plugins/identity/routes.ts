import { accountKeysStateKey, countedPage, isKeyDerivedAddress, jsonRecord, notFound, pageOf, stateKey, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { currentKeys } from './keys.js';
import { readConfig } from './recovery.js';
import { configPath, derivedPath, guardsCountPath, guardsPrefix, requestPath, type RecoveryRequest } from './store.js';

const requestCodec = jsonRecord<RecoveryRequest>();

export function identityRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  // decisions.md §35: the keys that may sign as main keys, and how many changes they went through.
  routes.get('/api/v1/identity/:addr', (req) =>
    s.query.run(plugin, async (ctx) => {
      const address = req.params.addr!;
      const set = await currentKeys(ctx, address);
      if (!isKeyDerivedAddress(address) && set.keys.length === 0 && !(await ctx.accounts.exists(address))) throw notFound(`${address} is neither a key-derived nor a registered address`);
      // A used key-derived address with nothing stored signs with its derived key (decisions.md
      // §35): state does not hold it (the address is its hash), the transactions it signed do.
      if (set.keys.length === 0 && isKeyDerivedAddress(address)) {
        const derived = await s.chain.derivedKeyOf(address);
        if (derived !== undefined) return { address, keys: [derived], version: 0 };
      }
      return { address, keys: set.keys, version: set.version };
    }),
    // decisions.md §84: the account's main keys and the derived key identity remembers for it.
    { proves: (req) => [accountKeysStateKey(req.params.addr!), stateKey(plugin, derivedPath(req.params.addr!))] },
  );
  routes.get('/api/v1/identity/recovery/:addr', (req) =>
    s.query.run(plugin, async (ctx) => {
      const address = req.params.addr!;
      const config = await readConfig(ctx, address);
      const latest = await ctx.store.getRecord<RecoveryRequest>(requestPath(address), requestCodec);
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
    { proves: (req) => [stateKey(plugin, configPath(req.params.addr!)), stateKey(plugin, requestPath(req.params.addr!))] },
  );
  // One page of the guardian's own entries, and their count from its record: anyone may name an
  // address as their guardian, so the list can be long, and a request reads only its page.
  routes.get('/api/v1/identity/guardian-of/:addr', (req) => {
    const { limit, offset } = pageOf(req.query, 100, 100);
    return s.query.run(plugin, async (ctx) => {
      const prefix = guardsPrefix(req.params.addr!);
      const total = (await ctx.store.getRecord<number>(guardsCountPath(req.params.addr!))) ?? 0;
      const identities = offset >= total ? [] : (await ctx.store.scan(prefix, { limit: offset + limit })).slice(offset).map(([k]) => k.slice(prefix.length));
      return { address: req.params.addr, ...countedPage('identities', identities, total, limit, offset) };
    });
  });
}
