import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { getJson, until } from '../helpers/node-process.js';
import { testSeed } from '../helpers/prng.js';
import { rawRequest } from '../helpers/raw-http.js';
import { routeName, routesOf, type ApiRoute } from './route-cases.js';
import { describeFinding, fuzzRoutes, problemWith, requestBytes, type FuzzReport } from './route-fuzzer.js';
import { FUZZ_REGRESSIONS } from './regressions.js';

/**
 * Every route of a real node or of a real gateway in front of it (issue 39, part 2 "Errors"),
 * fuzzed from the schemas the routes validate with: the routes are the ones each process lists
 * in its API reference (`GET /api/v1/openapi.json`, built from its route table, as
 * `npm run openapi` reads them), so a route added tomorrow is fuzzed tomorrow.
 *
 * State: a refused request must change nothing. Blocks keep coming while the fuzzer runs (an
 * empty block every 300 ms), so comparing two reads of the head root would compare two heights.
 * What this chain guarantees instead, and what is checked, is per block: a block with no
 * transactions leaves the state root as it found it (nothing in this devnet's state moves on an
 * empty block: rewards are paid every `reward_interval_blocks`, pushed far past the run), and a
 * block with transactions holds only ones this run saw admitted (a 2xx answer carrying their
 * tx_hash). So every root change in the window is a block of admitted transactions, and none of
 * a refused request. The first check is asserted before the fuzzer starts, so a chain that one
 * day moves state on empty blocks fails here with that reason rather than blaming a route.
 *
 * Bounded: FUZZ_RUNS cases per route (default 150: about 2.5 minutes for both processes on this
 * 2-core machine; 200 took 3.5), seeded by FUZZ_SEED; `npm run fuzz -- --runs 5000 --seed 7` runs
 * the long form (test/faults/fuzz.run.mjs), FUZZ_ROUTE narrows to routes whose `METHOD /path`
 * contains it, FUZZ_PATH replays one case a failure printed.
 *
 * One file per process (fuzz-routes-node, fuzz-routes-gateway), each on a devnet of its own: the
 * two in one file took 300 s, the runner's limit per file, on a loaded clean-clone CI. Both use
 * the same seed, so a case a failure printed replays in either.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? testSeed('fuzz-routes'));
const ROUTE = process.env.FUZZ_ROUTE;
const PATH = process.env.FUZZ_PATH;
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 6);

type Doc = Parameters<typeof routesOf>[0];

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function routesServed(url: string): Promise<ApiRoute[]> {
  const doc = (await getJson(`${url}/api/v1/openapi.json`)).body as unknown as Doc;
  const all = routesOf(doc);
  return ROUTE === undefined ? all : all.filter((r) => routeName(r).includes(ROUTE));
}

async function headHeight(url: string): Promise<number> {
  return (await getJson(`${url}/health`)).body.height as number;
}

function summary(service: string, routes: number, report: FuzzReport, ms: number): string {
  const statuses = [...report.statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ');
  return `${service}: ${routes} routes, ${report.requests} requests in ${(ms / 1000).toFixed(1)} s (seed ${SEED}, ${RUNS} runs per route); statuses ${statuses}; admitted ${report.admitted.size}`;
}

export function describeRouteFuzz(service: 'node' | 'gateway'): void {
  describe(`every ${service} route fuzzed`, () => {
    let net: TestDevnet;
    let nodeUrl: string;
    let startHeight = 0;
    const admitted = new Set<string>();

    before(async () => {
      net = await startTestDevnet({ validators: 1, genesisParams: { reward_interval_blocks: '1000000000' } });
      nodeUrl = net.rpcUrls[0]!;
      startHeight = await headHeight(nodeUrl);
      // The premise of the state check (above): empty blocks leave the root alone on this chain.
      const h = await until('two empty blocks', async () => ((await headHeight(nodeUrl)) >= startHeight + 2 ? startHeight + 2 : undefined));
      const [a, b] = await Promise.all([h - 1, h].map(async (x) => (await getJson(`${nodeUrl}/api/v1/blocks/${x}`)).body));
      assert.equal(b!.tx_count, 0);
      assert.equal(b!.state_root, a!.state_root, 'an empty block moved the state root: the refused-request check below cannot tell a route from the chain');
    });
    after(async () => net?.stop());

    test('inputs that once broke a route are answered as the spec says', async () => {
      const url = service === 'node' ? nodeUrl : net.gatewayUrl;
      const routes = routesOf((await getJson(`${url}/api/v1/openapi.json`)).body as unknown as Doc);
      for (const c of FUZZ_REGRESSIONS) {
        const route = routes.find((r) => routeName(r) === c.route);
        if (route === undefined) continue;
        const problem = problemWith(route, await rawRequest(portOf(url), requestBytes(c.request)));
        assert.equal(problem, undefined, `${service} ${c.route}: ${c.why}`);
      }
    });

    test(`every ${service} route: an answer, no 5xx but a declared 503, every refusal 4xx JSON {error}`, async () => {
      const url = service === 'node' ? nodeUrl : net.gatewayUrl;
      const routes = await routesServed(url);
      assert.ok(ROUTE !== undefined || routes.length > 50, `${service} lists ${routes.length} routes`);
      const started = Date.now();
      const report = await fuzzRoutes(routes, { port: portOf(url), runs: RUNS, seed: SEED, concurrency: CONCURRENCY, ...(PATH !== undefined ? { path: PATH } : {}) });
      console.log(summary(service, routes.length, report, Date.now() - started));
      for (const h of report.admitted) admitted.add(h);
      assert.deepEqual(report.findings.map(describeFinding), [], `${report.findings.length} routes of the ${service} broke the promise`);
    });

    test('refused requests changed no state: empty blocks kept the root, others held only admitted transactions', async () => {
      // Whatever was admitted last is in a block (or expired) a few blocks on.
      const end = (await headHeight(nodeUrl)) + 3;
      await until(`height ${end}`, async () => ((await headHeight(nodeUrl)) >= end ? true : undefined), 30_000);
      let previous = (await getJson(`${nodeUrl}/api/v1/blocks/${startHeight}`)).body;
      for (let h = startHeight + 1; h <= end; h++) {
        const block = (await getJson(`${nodeUrl}/api/v1/blocks/${h}`)).body;
        if (block.tx_count === 0) {
          assert.equal(block.state_root, previous.state_root, `empty block ${h} moved the state root`);
        } else {
          const txs = (await getJson(`${nodeUrl}/api/v1/blocks/${h}/transactions?limit=200`)).body.transactions as Array<{ hash: string; type: string }>;
          for (const tx of txs) assert.ok(admitted.has(tx.hash), `block ${h} holds ${tx.type} ${tx.hash}, which no answer admitted`);
        }
        previous = block;
      }
    });
  });
}
