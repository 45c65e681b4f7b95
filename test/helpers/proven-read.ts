import assert from 'node:assert/strict';
import { RouteTable } from '../../kernel/host/route-table.js';
import { ProvenReads } from '../../kernel/node/proven-reads.js';
import type { QueryService } from '../../kernel/node/queries.js';
import { canonicalJson } from '../../kernel/codec/json.js';
import { sha3Hex0x } from '../../kernel/crypto/hash.js';
import { ONE_THIRD, trustFromGenesis, verifyProvenRead } from '../../kernel/light-client/index.js';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import type { NodeServices } from '../../kernel/sdk.js';
import { trustFromGenesis as moduleTrust, verifyProvenRead as moduleVerify } from '../../sdk/crypto.js';
import type { Fixture } from './chain-fixture.js';

/** An answer as a client receives it: bigints written as JSON numbers. */
export function onTheWire(answer: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(answer, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as Record<string, unknown>;
}

/**
 * `GET <path>?prove=true` on a unit-test chain's plugin route, as a node serves it (decisions.md
 * §84: the route's own handler pinned to head − 1, its declared keys proven), checked as a client
 * checks it (§85), by the kernel's checker and the browser module's, against the validators of `genesis`. `services`: what makeChain was given (it
 * fills the node's query service in). Needs two certified blocks after the
 * writes it proves (`certifiedBlock`). Answers the checked answer and its entries' keys.
 */
export async function provenGet(f: Fixture, services: { query?: NodeServices['query'] }, genesis: GenesisDoc, path: string, params: Record<string, string>): Promise<{ answer: Record<string, unknown>; keys: Array<[string, boolean]> }> {
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const route = routes.list().find((r) => r.method === 'GET' && r.path === path);
  assert.ok(route, `GET ${path} is served`);
  const served = (await new ProvenReads(f.chain, services.query as QueryService).handlerOf(route)({ method: 'GET', path, params, query: new URLSearchParams('prove=true'), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
  const answer = onTheWire(served);
  const pinned = JSON.parse(JSON.stringify(genesis, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as unknown;
  verifyProvenRead(answer, trustFromGenesis(pinned, sha3Hex0x(canonicalJson(genesis))), { kind: 'record', trustLevel: ONE_THIRD });
  // And as the browser module checks it, told no kind (decisions.md §86).
  moduleVerify(answer, moduleTrust(pinned, sha3Hex0x(canonicalJson(genesis))));
  const entries = (answer.proof as { entries: Array<{ key: string; exists: boolean }> }).entries;
  return { answer, keys: entries.map((e) => [e.key, e.exists]) };
}
