import { QueryService } from '../../kernel/node/queries.js';
import { nodeKey, type NodeKey } from '../../kernel/node/node-key.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import type { KeyPair } from '../../kernel/crypto/provider.js';
import type { Fixture } from './chain-fixture.js';

/**
 * The node's query service over a unit-test chain, for route handlers a plugin serves through
 * `api.services.query`: pass the same object as makeChain's `services`, then call `withQueries`
 * on the fixture (the service reads the chain's committed state).
 */
export function withQueries(services: { query?: QueryService }, f: Fixture): void {
  services.query = new QueryService({ state: f.chain.queries.state, height: () => f.chain.head.height }, f.hooks, { env: 'testnet', params: f.params });
}

/** The node's own key for a unit-test chain's plugins (`api.services.nodeKey`), signing with noble. */
export function withNodeKey(services: { nodeKey?: NodeKey; now?: () => number }, address: string, keys: KeyPair, now = 1_700_000_000_000): void {
  services.nodeKey = nodeKey(address, keys, nobleProvider);
  services.now = () => now;
}
