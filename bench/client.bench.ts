import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Bench } from 'tinybench';
import { makeSigners, provenAccount } from '../test/helpers/light-chain.js';
import { launchChromium, CHROMIUM_PATH } from '../test/helpers/chromium.js';
import { sortValidators } from '../kernel/light-client/index.js';
import { MANIFEST_FILE, WEB_DIR, repoRoot, type BuiltManifest } from '../sdk/build/crypto-module.js';

/**
 * What a client pays for decisions.md §85 with what the project ships: a proven account read
 * checked by the browser crypto module (the bytes the gateway serves), in Node and in headless
 * Chromium, for 4, 7 and 16 validators, all signing; and the module's minified size (at most
 * 100 KB, §86) and gzipped size.
 * Run: npm run build && node dist/bench/client.bench.js   (Chromium: apt-get install chromium-headless-shell)
 */
const CHAIN = 'bench-chain';
const SETS = [4, 7, 16];
const root = repoRoot();
const manifest = JSON.parse(readFileSync(join(root, WEB_DIR, MANIFEST_FILE), 'utf8')) as BuiltManifest;
const moduleBytes = readFileSync(join(root, WEB_DIR, manifest.file));
type Mod = { verifyProvenRead(answer: unknown, trusted: unknown, o?: { kind?: 'account' | 'record' }): { height: number } };
const mod = (await import(pathToFileURL(join(root, WEB_DIR, manifest.file)).href)) as Mod;

const cases: Array<{ n: number; answer: Record<string, unknown>; trusted: unknown }> = [];
for (const n of SETS) {
  const set = makeSigners(Array.from({ length: n }, () => 10), 1);
  const answer = await provenAccount({ chainId: CHAIN, height: 100, set });
  const trusted = { chain_id: CHAIN, validators: sortValidators(set).map((v) => ({ address: v.address, public_key: v.public_key, power: v.power.toString() })) };
  cases.push({ n, answer, trusted });
}

const rows: Array<Record<string, string>> = [];
const bench = new Bench({ time: 3000 });
for (const c of cases) bench.add(`${c.n}`, () => void mod.verifyProvenRead(c.answer, c.trusted, { kind: 'account' }));
await bench.run();
for (const t of bench.tasks) {
  const r = t.result as { latency?: { mean: number; p99?: number } } | undefined;
  rows.push({ where: 'Node (module)', validators: t.name, 'mean ms': r?.latency?.mean?.toFixed(2) ?? '-', 'p99 ms': r?.latency?.p99?.toFixed(2) ?? '-' });
}

const browser = await launchChromium();
if (!browser) {
  process.stdout.write(`no Chromium at ${CHROMIUM_PATH}: browser figures skipped\n`);
} else {
  // The module from a page of a loopback origin, as a gateway would serve it.
  const server = createServer((req, res) => {
    if (req.url === `/${manifest.file}`) res.writeHead(200, { 'content-type': 'text/javascript' }).end(moduleBytes);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bench</title>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    for (const c of cases) {
      const ms = await page.evaluate(
        async ({ url, answer, trusted }) => {
          const m = (await import(url)) as Mod;
          const p = (globalThis as unknown as { performance: { now(): number } }).performance;
          for (let i = 0; i < 3; i++) m.verifyProvenRead(answer, trusted, { kind: 'account' }); // warm-up
          const times: number[] = [];
          const until = p.now() + 3000;
          while (p.now() < until || times.length < 10) {
            const t0 = p.now();
            m.verifyProvenRead(answer, trusted, { kind: 'account' });
            times.push(p.now() - t0);
          }
          times.sort((a, b) => a - b);
          return { mean: times.reduce((a, b) => a + b, 0) / times.length, p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]! };
        },
        { url: `/${manifest.file}`, answer: c.answer, trusted: c.trusted },
      );
      rows.push({ where: `Chromium ${browser.version()}`, validators: String(c.n), 'mean ms': ms.mean.toFixed(2), 'p99 ms': ms.p99.toFixed(2) });
    }
  } finally {
    await browser.close();
    server.close();
  }
}

console.table(rows);
process.stdout.write(`browser crypto module ${manifest.file}: ${moduleBytes.length} bytes minified (limit 102400), ${gzipSync(moduleBytes).length} bytes gzipped, ${manifest.built_from.bundler}\n`);
