import assert from 'node:assert/strict';
import { proveStateKeys } from '../../kernel/node/proven-reads.js';
import { Registry } from 'prom-client';
import { genesisDoc, wallet, type Fixture } from './chain-fixture.js';
import { genesisHash } from '../../kernel/chain/block-hash.js';
import { validateConfig } from '../../kernel/config/load.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { registerKernelRoutes } from '../../kernel/node/kernel-routes.js';
import { NodeMetrics } from '../../kernel/node/metrics.js';
import { RouteTable } from '../../kernel/host/route-table.js';
import type { KernelServices } from '../../kernel/node/services.js';
import { QueryService } from '../../kernel/node/queries.js';
import { chainHistory } from '../../kernel/node/history.js';
import { nodeKey } from '../../kernel/node/node-key.js';

/** The kernel's routes over a fixture chain, called as the HTTP server would call them. */
export function kernelRoutes(f: Fixture): (path: string, params: Record<string, string>, query?: string) => Promise<Record<string, unknown>> {
  const services: KernelServices = {
    chain: f.chain,
    index: (plugin: string) => f.chain.queries.pluginIndex(plugin),
    query: new QueryService({ state: f.chain.queries.state, height: () => f.chain.head.height }, f.hooks, { env: 'testnet', params: f.params }),
    config: validateConfig({ network: 'unit', env: 'testnet', plugins: [] }),
    consensus: { round: () => 0, peers: () => [], behind: () => 0 },
    metrics: new NodeMetrics({ verifications: 0, cacheHits: 0 }),
    registry: new Registry(),
    provider: nobleProvider,
    nodeKey: nodeKey('chain:v0.node', wallet(23).keys, nobleProvider),
    now: () => 0,
    history: chainHistory(f.chain.queries, () => f.chain, 0),
    shards: f.chain.shards,
    proveKeys: (keys) => proveStateKeys(f.chain, keys),
    node: { genesis: genesisDoc([]), genesisHash: genesisHash(genesisDoc([])), nodeId: 'ab'.repeat(20), nodeAddress: 'chain:v0.node', moniker: 'alpha', p2pEndpoint: () => `${'ab'.repeat(20)}@127.0.0.1:26656` },
  };
  const routes = new RouteTable();
  registerKernelRoutes(routes, services, f.params, f.operations, f.host);
  return async (path, params, query = '') => {
    const route = routes.list().find((r) => r.method === 'GET' && r.path === path);
    assert.ok(route, `GET ${path} is served`);
    return (await route.handler({ method: 'GET', path, params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
  };
}

