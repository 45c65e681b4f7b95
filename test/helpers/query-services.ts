import { QueryService } from '../../kernel/node/queries.js';
import type { Fixture } from './chain-fixture.js';

/**
 * The node's query service over a unit-test chain, for route handlers a plugin serves through
 * `api.services.query`: pass the same object as makeChain's `services`, then call `withQueries`
 * on the fixture (the service reads the chain's committed state).
 */
export function withQueries(services: { query?: QueryService }, f: Fixture): void {
  services.query = new QueryService({ state: f.chain.store.state, height: () => f.chain.head.height }, f.hooks, { env: 'testnet', params: f.params });
}
