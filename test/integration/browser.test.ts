import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { launchChromium, CHROMIUM_PATH } from '../helpers/chromium.js';
import { canonicalJson } from '../../kernel/codec/json.js';
import { sha3Hex0x } from '../../kernel/crypto/hash.js';
import { ChainHttpError, connect, keyFromFile, keyFromSeed } from '../../sdk/index.js';

/**
 * The browser crypto module and the explorer in headless Chromium against one devnet, as a person
 * would use them (decisions.md §86, §88): keys made in the page match §4 and a transfer signed in
 * the page is confirmed; each explorer view shows what the API serves; the home height rises
 * without a reload; the account view is verified against the pinned genesis; no request leaves
 * the gateway's origin and the page throws nothing. Screenshots go to `artifacts/` (git-ignored).
 */
const ARTIFACTS = resolve('artifacts');
/** The page's globals, for functions that run inside it (this file compiles without the DOM library). */
type PageGlobals = { location: { hash: string; origin: string }; document: { querySelector(s: string): { textContent: string | null } | null }; localStorage: { setItem(k: string, v: string): void; removeItem(k: string): void } };
const SEED = '01'.repeat(32);
/** Chain data is anyone's text: shown as text, it loads nothing and runs nothing (the last test checks). */
const HOSTILE_TEXT = '<img src="http://192.0.2.1/x.png" onerror="throw new Error(1)"><script>throw new Error(2)</script>';

describe('browser module and explorer in headless Chromium', () => {
  let net: TestDevnet;
  let browser: Browser | undefined;
  let page: Page;
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const failed: string[] = [];
  let block3Hash = '';
  let transferHash = '';
  let pageAddress = '';

  before(async () => {
    browser = await launchChromium();
    if (!browser) return;
    net = await startTestDevnet({ env: { POLL_NODE_INTERVAL_MS: '250' } });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => requests.push(r.url()));
    page.on('websocket', (ws) => requests.push(ws.url()));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // A failed load is logged by Chromium itself; those are judged by their responses below.
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && pageErrors.push(`console: ${m.text()}`));
    page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${new URL(r.url()).pathname}`));
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await net?.stop();
  });

  const skip = (t: { skip(m: string): void }): boolean => {
    if (browser) return false;
    t.skip(`no Chromium at ${CHROMIUM_PATH} (apt-get install chromium-headless-shell, or set CHROMIUM_PATH)`);
    return true;
  };

  /** Each `[data-field]` under `scope` that is not inside a list row, by field name. */
  const fieldsIn = (scope: string): Promise<Record<string, string>> =>
    page.$$eval(`${scope} [data-field]`, (els) => Object.fromEntries(els.filter((e) => !e.closest('tr')).map((e) => [e.getAttribute('data-field')!, e.textContent ?? ''])));
  /** Every scalar field of `api` is shown with its exact text. */
  const showsEvery = (shown: Record<string, string>, api: Record<string, unknown>, what: string, skip: readonly string[] = []): void => {
    for (const [k, v] of Object.entries(api)) {
      if (skip.includes(k) || (v !== null && typeof v === 'object')) continue;
      assert.equal(shown[k], v === null ? 'null' : String(v), `${what}: ${k}`);
    }
  };
  const open = async (hash: string, view: string): Promise<void> => {
    await page.evaluate((h) => ((globalThis as unknown as PageGlobals).location.hash = h), hash);
    await page.waitForSelector(`[data-view="${view}"]:not([data-loading])`, { timeout: 20_000 });
    assert.equal(await page.$$eval(`[data-view="${view}"] [data-error]`, (e) => e.length), 0, `${hash} read without error`);
  };
  const shot = async (name: string): Promise<void> => {
    const path = join(ARTIFACTS, `explorer-${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`screenshot: ${path}`);
  };

  test('the module served at /api/v1/wasm: manifest fields, its keys match §4, and a transfer signed in the page is confirmed', async (t) => {
    if (skip(t)) return;
    const manifest = (await getJson(`${net.gatewayUrl}/api/v1/wasm/version`)).body;
    for (const f of ['name', 'version', 'format', 'url', 'size', 'sha384', 'integrity', 'algorithm', 'hash', 'mnemonic', 'exports', 'built_from']) assert.ok(f in manifest, `manifest has ${f}`);
    assert.deepEqual([manifest.name, manifest.format, manifest.algorithm, manifest.hash, manifest.mnemonic], ['chain-crypto', 'esm', 'ML-DSA-65', 'SHA3-256', 'BIP-39 English, 24 words']);
    const res = await fetch(`${net.gatewayUrl}${String(manifest.url)}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.match(res.headers.get('cache-control') ?? '', /immutable/);
    assert.equal(bytes.length, manifest.size);
    const ours = keyFromSeed(SEED);
    const funded = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: ours.address, public_key: ours.publicKeyHex });
    assert.equal(funded.status, 200, JSON.stringify(funded.body));
    await waitConfirmed(net.rpcUrls[0]!, funded.body.tx_hash as string);

    await page.goto(`${net.gatewayUrl}/explorer/`);
    const inPage = await page.evaluate(async ({ seed }) => {
      const m = await fetch('/api/v1/wasm/version').then((r) => r.json() as Promise<{ url: string; integrity: string }>);
      const mod = (await import(m.url)) as {
        keygen(s?: string): { seed_hex: string; public_key: string; address: string };
        fromPhrase(w: string[]): { address: string };
        generatePhrase(): string[];
        signTransfer(s: string, t: Record<string, unknown>): Record<string, unknown>;
      };
      const key = mod.keygen(seed);
      const words = mod.generatePhrase();
      const [net, acct, gas] = await Promise.all(['/api/v1/network/status', `/api/v1/accounts/${key.address}`, '/api/v1/gas/estimate'].map((p) => fetch(p).then((r) => r.json() as Promise<Record<string, unknown>>)));
      const body = mod.signTransfer(seed, { chain_id: net!['chain_id'], to: 'chain:aaaaaaaaaaaaaaa.human', value: 1234, nonce: acct!['next_nonce'], gas_price: gas!['base_fee'] });
      const sent = await fetch('/api/v1/transactions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
      return { key, words: words.length, phraseAddress: mod.fromPhrase(words).address, sent };
    }, { seed: SEED });
    assert.equal(inPage.key.address, 'chain:307f4559431e680.human', '§4 vector in the page');
    assert.equal(inPage.key.public_key, ours.publicKeyHex);
    assert.equal(inPage.words, 24);
    assert.match(inPage.phraseAddress, /^chain:[0-9a-f]{15}\.human$/);
    assert.equal(inPage.sent.status, 200, JSON.stringify(inPage.sent.body));
    transferHash = inPage.sent.body.tx_hash as string;
    const tx = await waitConfirmed(net.rpcUrls[0]!, transferHash);
    assert.deepEqual([tx.status, tx.value, tx.from], ['confirmed', 1234, ours.address]);
    pageAddress = ours.address;
  });

  test('home: the latest height from /ws rises without a reload; blocks newest first as the API has them; charts drawn', async (t) => {
    if (skip(t)) return;
    await page.goto(`${net.gatewayUrl}/`);
    assert.equal(new URL(page.url()).pathname, '/explorer/', '/ redirects to the explorer');
    await page.waitForSelector('[data-view="home"] [data-block-height]');
    const heightText = async (): Promise<number> => Number(await page.textContent('[data-view="home"] > .tiles [data-field="height"]'));
    const first = await until('a height from init', async () => ((await heightText()) > 0 ? heightText() : undefined));
    await page.waitForFunction((h) => Number((globalThis as unknown as PageGlobals).document.querySelector('[data-view="home"] > .tiles [data-field="height"]')?.textContent) > h + 1, first, { timeout: 30_000 });
    const rows = await page.$$eval('[data-view="home"] [data-block-height]', (els) => els.map((e) => Number(e.getAttribute('data-block-height'))));
    assert.ok(rows.length >= 3);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1]! > rows[i]!, 'newest first');
    assert.ok(rows[0]! > first, 'a block arrived live');
    for (const h of rows.slice(0, 3)) {
      const api = (await getJson(`${net.gatewayUrl}/api/v1/blocks/${h}`)).body;
      const row = await page.$$eval(`[data-block-height="${h}"] [data-field]`, (els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-field')!, e.textContent ?? ''])));
      assert.deepEqual(row, { height: String(api.height), hash: String(api.hash), tx_count: String(api.tx_count), proposer: String(api.proposer), timestamp: String(api.timestamp) });
    }
    assert.equal(await page.$$eval('[data-chart] canvas', (c) => c.length), 2, 'two uPlot charts');
    await shot('home');
  });

  test('block, transaction, account (verified), validators, proposals, contracts and search show what the API serves', async (t) => {
    if (skip(t)) return;
    const gw = net.gatewayUrl;
    const client = connect({ url: net.rpcUrls[0]! });
    // Something for the governance and contract views: a proposal by validator-0 and a deployed token.
    const v0 = keyFromFile(join(net.dir, 'keys', 'validator-0.json'));
    const proposed = await client.operation(v0, 'propose', { proposer: 'chain:validator-0.node', title: 'explorer test', description: HOSTILE_TEXT, kind: 'text', voting_duration: 100 });
    assert.equal((await client.waitFinal(proposed.tx_hash)).status, 'confirmed');
    const tpl = ((await getJson(`${net.rpcUrls[0]!}/api/v1/templates/fungible-token`)).body) as { bytecode_hex: string };
    // A deploy's checks run on a thread below the node's priority with a 3 s bound, so on a
    // starved CI machine they may answer 503 "retry later", which a client then does.
    const deploy = () => client.operation(v0, 'deploy', { owner: v0.address, bytecode_hex: tpl.bytecode_hex, name: 'Explorer token', template: 'fungible-token', init_args: { name: 'Ex', symbol: 'EXP', decimals: 6, total_supply: '1000' } }, { gasLimit: 100 });
    let deployed: Awaited<ReturnType<typeof deploy>> | undefined;
    for (let attempt = 1; deployed === undefined; attempt++) {
      try {
        deployed = await deploy();
      } catch (err) {
        if (!(err instanceof ChainHttpError && err.status === 503) || attempt === 5) throw err;
      }
    }
    assert.equal((await client.waitFinal(deployed.tx_hash)).status, 'confirmed');

    const tx = (await getJson(`${gw}/api/v1/transactions/${transferHash}`)).body;
    await open(`#/block/${String(tx.block)}`, 'block');
    showsEvery(await fieldsIn('[data-view="block"] [data-section="block"]'), (await getJson(`${gw}/api/v1/blocks/${String(tx.block)}`)).body, 'block');
    assert.equal(await page.$$eval(`[data-view="block"] [data-tx-hash="${transferHash}"]`, (e) => e.length), 1, 'the block lists its transaction');

    await open(`#/tx/${transferHash}`, 'tx');
    showsEvery(await fieldsIn('[data-view="tx"]'), tx, 'tx');
    await shot('tx');

    await open(`#/account/${pageAddress}`, 'account');
    await page.waitForSelector('[data-view="account"][data-verified]', { timeout: 30_000 });
    assert.equal(await page.getAttribute('[data-view="account"]', 'data-verified'), 'true', await page.textContent('[data-view="account"] [data-section="proof"]') ?? '');
    const account = (await getJson(`${gw}/api/v1/accounts/${pageAddress}`)).body;
    showsEvery(await fieldsIn('[data-view="account"] [data-section="account"]'), account, 'account');
    const genesis = (await getJson(`${gw}/api/v1/genesis`)).body;
    assert.equal(await page.textContent('[data-view="account"] [data-field="genesis_hash"]'), sha3Hex0x(canonicalJson(genesis)));
    assert.equal(sha3Hex0x(canonicalJson(genesis)), sha3Hex0x(canonicalJson(JSON.parse(readFileSync(join(net.dir, 'genesis.json'), 'utf8')))), 'the served genesis is the devnet\'s');
    showsEvery(await fieldsIn('[data-view="account"] [data-section="staking"]'), (await getJson(`${gw}/api/v1/staking/info/${pageAddress}`)).body, 'staking', ['address']);
    assert.ok((await page.$$eval(`[data-view="account"] [data-section="history"] [data-tx-hash="${transferHash}"]`, (e) => e.length)) === 1, 'its history lists the transfer');
    await shot('account');

    // Pinned to another genesis, the same read is not verified.
    await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      w.localStorage.setItem(`chain-explorer:genesis-hash:${w.location.origin}`, `0x${'ab'.repeat(32)}`);
    });
    await page.reload();
    await page.waitForSelector('[data-view="account"][data-verified]', { timeout: 30_000 });
    assert.equal(await page.getAttribute('[data-view="account"]', 'data-verified'), 'false');
    assert.match((await page.textContent('[data-verify-error]')) ?? '', /genesis_hash/);
    await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals;
      w.localStorage.removeItem(`chain-explorer:genesis-hash:${w.location.origin}`);
    });
    await page.reload();
    await page.waitForSelector('[data-view="account"][data-verified="true"]', { timeout: 30_000 });

    await open('#/validators', 'validators');
    const vs = (await getJson(`${gw}/api/v1/validators`)).body.validators as Array<Record<string, unknown>>;
    assert.equal(await page.$$eval('[data-view="validators"] [data-validator]', (e) => e.length), vs.length);
    for (const v of vs) assert.equal(await page.textContent(`[data-validator="${String(v.address)}"] [data-field="stake_human"]`), String(v.stake_human));

    await open('#/proposals', 'proposals');
    const proposals = (await getJson(`${gw}/api/v1/governance/proposals?limit=100`)).body.proposals as Array<Record<string, unknown>>;
    assert.equal(proposals.length, 1);
    assert.equal(await page.textContent(`[data-proposal-id="${String(proposals[0]!.id)}"] [data-field="title"]`), 'explorer test');
    await open(`#/proposal/${String(proposals[0]!.id)}`, 'proposal');
    // `height` is the height the read was served at: the page read before the test did, and blocks go on.
    const proposalShown = await fieldsIn('[data-view="proposal"]');
    const proposalRead = (await getJson(`${gw}/api/v1/governance/${String(proposals[0]!.id)}`)).body;
    showsEvery(proposalShown, proposalRead, 'proposal', ['height']);
    assert.ok(Number(proposalShown.height) >= 1 && Number(proposalShown.height) <= Number(proposalRead.height), `proposal read at ${String(proposalShown.height)}, not after ${String(proposalRead.height)}`);
    assert.equal(await page.textContent('[data-view="proposal"] [data-field="description"]'), HOSTILE_TEXT);
    assert.equal(await page.$$eval('[data-view="proposal"] img, [data-view="proposal"] script', (e) => e.length), 0, 'markup in chain data stays text');

    await open('#/contracts', 'contracts');
    const contracts = (await getJson(`${gw}/api/v1/contracts?limit=100`)).body.contracts as Array<Record<string, unknown>>;
    assert.equal(contracts.length, 1);
    const app = String(contracts[0]!.address);
    assert.equal(await page.$$eval(`[data-view="contracts"] [data-contract="${app}"]`, (e) => e.length), 1);
    await open(`#/contract/${app}`, 'contract');
    showsEvery(await fieldsIn('[data-view="contract"]'), (await getJson(`${gw}/api/v1/contracts/${app}`)).body, 'contract');

    // Search, from any view: a height, a transaction hash, a block hash, an address, a contract.
    const search = async (q: string, view: string): Promise<void> => {
      await page.fill('input[data-search]', q);
      await page.press('input[data-search]', 'Enter');
      await page.waitForSelector(`[data-view="${view}"]:not([data-loading])`, { timeout: 20_000 });
    };
    await search('2', 'block');
    assert.equal(await page.textContent('[data-view="block"] [data-section="block"] [data-field="height"]'), '2');
    await search(transferHash, 'tx');
    const block3 = (await getJson(`${gw}/api/v1/blocks/3`)).body;
    block3Hash = String(block3.hash);
    await search(block3Hash, 'block');
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('[data-view="block"] [data-section="block"] [data-field="height"]')?.textContent === '3');
    await search(pageAddress, 'account');
    await search(app, 'contract');
    await search('nothing-like-this', 'notfound');
    await open('#/validators', 'validators');
    await shot('validators');
  });

  test('/docs from the gateway\'s origin shows every operation\'s method and path without a click (decisions.md §87), Swagger UI below', async (t) => {
    if (skip(t)) return;
    const doc = (await getJson(`${net.gatewayUrl}/api/v1/openapi.json`)).body as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    await page.goto(`${net.gatewayUrl}/docs`);
    await page.waitForSelector('.swagger-ui .opblock', { timeout: 30_000 });
    const shown = await page.$$eval('[data-operations] li', (els) =>
      els.filter((e) => (e as unknown as { checkVisibility(): boolean }).checkVisibility()).map((e) => [...e.querySelectorAll('code')].map((c) => c.textContent ?? '').join(' ')),
    );
    assert.deepEqual([...shown].sort(), expected, 'every operation, visible on the page as it loads');
    await shot('docs');
  });

  test('no request left the gateway\'s origin, and the page threw nothing', async (t) => {
    if (skip(t)) return;
    const origin = new URL(net.gatewayUrl);
    const foreign = requests.filter((u) => {
      if (u.startsWith('data:')) return false;
      const url = new URL(u);
      return url.host !== origin.host || !['http:', 'ws:'].includes(url.protocol);
    });
    assert.deepEqual(foreign, []);
    assert.ok(requests.some((u) => u.startsWith(`ws://${origin.host}/ws`)), 'the page used /ws');
    assert.deepEqual(pageErrors, []);
    // The one answer that is not 200: the search asks for a transaction of the block hash first (§88).
    assert.deepEqual(failed, [`404 /api/v1/transactions/${block3Hash}`]);
  });
});
