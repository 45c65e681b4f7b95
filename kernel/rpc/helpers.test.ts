/** The small pure pieces both backends share: CORS policy, client IP, body parsing, reply encoding, backend choice. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { ChainError, isChainError } from '../errors.js';
import { BodyCollector, MAX_JSON_DEPTH, bodyTooLargeError, hasBody, nestedPast, parseJsonBody } from './body.js';
import { CorsPolicy } from './cors.js';
import { addressMatcher, clientIp, normalizeIp, parseAddressRange } from './ip.js';
import { resolveOptions } from './options.js';
import { flexibleRateLimiter, retryAfterSeconds } from './rate-limit.js';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { encodedReply, errorResponse, reply, successResponse } from './respond.js';
import { createHttpServer, requestedBackend } from './select-backend.js';

const silent = pino({ level: 'silent' });

describe('CorsPolicy', () => {
  it('allows listed origins case-insensitively and tolerates a trailing slash in the setting', () => {
    const p = new CorsPolicy(' https://A.example/ , http://localhost:5173');
    assert.equal(p.allows('https://a.example'), true);
    assert.equal(p.allows('http://localhost:5173'), true);
    assert.equal(p.allows('http://localhost:5174'), false);
    assert.equal(p.allows(undefined), false);
    assert.deepEqual(p.responseHeaders('https://a.example'), {
      'Access-Control-Allow-Origin': 'https://a.example',
      'Access-Control-Expose-Headers': 'Retry-After',
      Vary: 'Origin',
    });
    assert.deepEqual(p.responseHeaders('https://b.example'), { Vary: 'Origin' });
  });

  it("answers '*' for any origin and nothing when the setting is empty", () => {
    assert.equal(new CorsPolicy('*').responseHeaders('https://x.example')['Access-Control-Allow-Origin'], '*');
    assert.deepEqual(new CorsPolicy('').responseHeaders('https://x.example'), {});
    assert.deepEqual(new CorsPolicy('').preflightHeaders('https://x.example', 'content-type'), {});
  });
});

describe('client IP', () => {
  it('normalises node and uWS spellings to one form', () => {
    assert.equal(normalizeIp('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(normalizeIp('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
    assert.equal(normalizeIp('0000:0000:0000:0000:0000:0000:0000:0001'), '::1');
    assert.equal(normalizeIp('2001:0DB8:0000:0000:0000:0000:0000:0042'), '2001:db8::42');
    assert.equal(normalizeIp('10.1.2.3'), '10.1.2.3');
  });

  it('reads X-Forwarded-For only when trusted, counting hops from the right', () => {
    const xff = '1.1.1.1, 2.2.2.2, 3.3.3.3';
    assert.equal(clientIp('10.0.0.1', xff, false), '10.0.0.1');
    assert.equal(clientIp('10.0.0.1', xff, true), '3.3.3.3');
    assert.equal(clientIp('10.0.0.1', xff, 2), '2.2.2.2');
    assert.equal(clientIp('10.0.0.1', xff, 9), '1.1.1.1');
    assert.equal(clientIp('10.0.0.1', 'garbage', true), '10.0.0.1');
  });
});

describe('address lists (rateLimitExempt)', () => {
  it('reads IPs and CIDR ranges of both families, in the spelling clientIp() produces', () => {
    assert.deepEqual(parseAddressRange(' 10.0.0.5 '), { address: '10.0.0.5', prefix: 32, family: 'ipv4' });
    assert.deepEqual(parseAddressRange('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    assert.deepEqual(parseAddressRange('FD00::/8'), { address: 'fd00::', prefix: 8, family: 'ipv6' });
    assert.deepEqual(parseAddressRange('::ffff:127.0.0.1'), { address: '127.0.0.1', prefix: 32, family: 'ipv4' });
    for (const bad of ['', 'gateway', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/-1', '10.0.0.0/8x', '10.0.0.256', 'localhost']) {
      assert.equal(parseAddressRange(bad), undefined, bad);
    }
  });

  it('matches client IPs against the list and names a bad entry', () => {
    const trusted = addressMatcher('rateLimitExempt', ['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    for (const ip of ['127.0.0.1', '10.200.3.4', 'fd12::1']) assert.equal(trusted(ip), true, ip);
    for (const ip of ['127.0.0.2', '11.0.0.1', 'fe80::1', '::1', 'not-an-ip', '']) assert.equal(trusted(ip), false, ip);
    assert.equal(addressMatcher('rateLimitExempt', [])('127.0.0.1'), false);
    assert.throws(() => addressMatcher('rateLimitExempt', ['10.0.0.1', '10.0.0.0/40']), /rateLimitExempt: "10\.0\.0\.0\/40" is not an IP address or CIDR range/);
  });
});

describe('bodies', () => {
  it('collects up to the limit and gives up past it', () => {
    const c = new BodyCollector(4);
    assert.equal(c.push(new Uint8Array([1, 2])), true);
    assert.equal(c.push(new Uint8Array([3, 4])), true);
    assert.deepEqual(c.result(), { kind: 'complete', bytes: Buffer.from([1, 2, 3, 4]) });
    assert.equal(c.push(new Uint8Array([5])), false);
    assert.equal(c.push(new Uint8Array([6])), false);
    assert.deepEqual(c.result(), { kind: 'too-large' });
    assert.equal(bodyTooLargeError(1048576).message, 'request body too large (limit 1048576 bytes)');
  });

  it('parses JSON, maps empty to undefined and rejects garbage with 400', () => {
    assert.deepEqual(parseJsonBody(Buffer.from('{"a":[1,2]}')), { value: { a: [1, 2] }, text: '{"a":[1,2]}' });
    assert.equal(parseJsonBody(Buffer.alloc(0)), undefined);
    assert.equal(parseJsonBody(Buffer.from(' \n')), undefined);
    for (const bad of [Buffer.from('{'), Buffer.from([0xff, 0x7b])]) {
      assert.throws(
        () => parseJsonBody(bad),
        (e: unknown) => isChainError(e) && e.status === 400 && e.message === 'malformed JSON body',
      );
    }
  });

  it('refuses a body nested past MAX_JSON_DEPTH before anything recurses into it', () => {
    const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    assert.deepEqual(parseJsonBody(Buffer.from(nested(MAX_JSON_DEPTH)))?.text, nested(MAX_JSON_DEPTH));
    for (const deep of [nested(MAX_JSON_DEPTH + 1), `{"a":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_001)}`]) {
      assert.throws(
        () => parseJsonBody(Buffer.from(deep)),
        (e: unknown) => isChainError(e) && e.status === 400 && /nest deeper than/.test(e.hint ?? ''),
      );
    }
    // Brackets inside strings, escaped quotes included, are text, not nesting.
    assert.equal(nestedPast(JSON.stringify({ s: '['.repeat(1000) + '\\"' + '{'.repeat(1000) }), 2), false);
    assert.equal(nestedPast('[[[', 2), true);
  });

  it('knows when a request carries a body', () => {
    assert.equal(hasBody({}), false);
    assert.equal(hasBody({ 'content-length': '0' }), false);
    assert.equal(hasBody({ 'content-length': '12' }), true);
    assert.equal(hasBody({ 'transfer-encoding': 'chunked' }), true);
  });
});

describe('responses', () => {
  it('encodes values, replies and errors', () => {
    assert.equal(successResponse({ n: 2n ** 64n }, silent).body.toString(), '{"n":18446744073709551616}');
    assert.equal(successResponse(undefined, silent).status, 204);
    const r = successResponse(reply(202, 'ok', { contentType: 'text/plain', headers: { 'X-A': 'b' } }), silent);
    assert.deepEqual([r.status, r.headers, r.body.toString()], [202, { 'X-A': 'b', 'Content-Type': 'text/plain' }, 'ok']);
    // A plain object shaped like a reply is still just data.
    assert.equal(successResponse({ status: 500, body: 'x' }, silent).status, 200);
    const e = errorResponse(new ChainError(402, 'fee too low', 'raise it', { minFee: 10n }), silent);
    assert.deepEqual([e.status, e.body.toString()], [402, '{"minFee":10,"error":"fee too low","hint":"raise it"}']);
  });

  it('sends an encoded reply as the bytes reply() would, encoded when it was made', () => {
    const body = { n: 2n ** 64n, list: [{ a: 'x' }] };
    const once = encodedReply(200, body, { headers: { 'X-A': 'b' } });
    const plain = successResponse(reply(200, body, { headers: { 'X-A': 'b' } }), silent);
    for (let i = 0; i < 2; i++) assert.deepEqual(successResponse(once, silent), plain);
    assert.ok(Object.isFrozen(once));
    assert.throws(() => encodedReply(200, { bytes: new Uint8Array(1) }), TypeError);
    // Made once: every request it answers gets the same bytes, not a copy.
    assert.equal(successResponse(once, silent).body, successResponse(once, silent).body);
    // Headers a reply may not carry are still the logged 500, at every request.
    for (let i = 0; i < 2; i++) assert.equal(successResponse(encodedReply(200, 1, { headers: { 'Content-Length': '5' } }), silent).status, 500);
  });

  it('turns unencodable results and unsafe headers into 500', () => {
    assert.equal(successResponse({ bytes: new Uint8Array(1) }, silent).status, 500);
    assert.equal(successResponse(reply(200, 1, { headers: { 'X-Evil': 'a\r\nSet-Cookie: x=1' } }), silent).status, 500);
    assert.equal(successResponse(reply(200, 1, { headers: { 'Content-Length': '5' } }), silent).status, 500);
    assert.equal(successResponse(reply(200, { not: 'text' }, { contentType: 'text/plain' }), silent).status, 500);
    assert.throws(() => reply(101, null), RangeError);
  });
});

describe('rate limiter adapter', () => {
  it('turns rate-limiter-flexible rejections into decisions and store errors into throws', async () => {
    const l = flexibleRateLimiter(new RateLimiterMemory({ points: 1, duration: 1 }));
    assert.deepEqual(await l.consume('a'), { allowed: true });
    const second = await l.consume('a');
    assert.equal(second.allowed, false);
    assert.deepEqual(await l.consume('b'), { allowed: true });
    const broken = flexibleRateLimiter({ consume: () => Promise.reject(new Error('redis down')) });
    await assert.rejects(broken.consume('a'), /redis down/);
    assert.equal(retryAfterSeconds(1), 1);
    assert.equal(retryAfterSeconds(0), 1);
    assert.equal(retryAfterSeconds(2001), 3);
  });
});

describe('options and backend choice', () => {
  const base = { host: '127.0.0.1', port: 0, corsAllowedOrigins: '', rateLimitPerSecond: 0 };

  it('prefers options.backend, then CHAIN_HTTP_BACKEND, then auto', () => {
    assert.deepEqual(requestedBackend({ ...base, backend: 'node' }, { CHAIN_HTTP_BACKEND: 'uws' }), { choice: 'node', source: 'options.backend' });
    assert.deepEqual(requestedBackend(base, { CHAIN_HTTP_BACKEND: 'UWS' }), { choice: 'uws', source: 'CHAIN_HTTP_BACKEND=uws' });
    assert.deepEqual(requestedBackend(base, {}), { choice: 'auto', source: 'auto' });
    assert.throws(() => requestedBackend(base, { CHAIN_HTTP_BACKEND: 'express' }), /must be uws, node or auto/);
  });

  it('auto is node:http, uws only when asked for, and says so', async () => {
    const saved = process.env['CHAIN_HTTP_BACKEND'];
    delete process.env['CHAIN_HTTP_BACKEND'];
    try {
      const server = await createHttpServer({ ...base, logger: silent });
      assert.equal(server.backend, 'node');
      assert.match(server.backendReason, /auto/);
      await server.close();
    } finally {
      if (saved !== undefined) process.env['CHAIN_HTTP_BACKEND'] = saved;
    }
  });

  it('fills defaults and refuses values one backend could not honour', () => {
    const handlers = { open() {}, message() {}, tooLarge() {}, close() {} };
    const r = resolveOptions({ ...base, ws: { path: '/ws', maxMessageBytes: 1000, handlers } });
    assert.equal(r.maxBodyBytes, 1048576);
    assert.equal(r.rateLimiter, undefined);
    assert.equal(r.ws?.transportMaxMessageBytes, 16000);
    assert.equal(r.ws?.idleTimeoutSeconds, 120);
    assert.throws(() => resolveOptions({ ...base, ws: { path: '/ws', maxMessageBytes: 1000, idleTimeoutSeconds: 5, handlers } }), /idleTimeoutSeconds/);
    assert.throws(() => resolveOptions({ ...base, ws: { path: 'ws', maxMessageBytes: 1000, handlers } }), /must start/);
    assert.throws(() => resolveOptions({ ...base, maxBodyBytes: 0 }), /maxBodyBytes/);
    assert.throws(() => resolveOptions({ ...base, rateLimitExempt: ['gateway'] }), /rateLimitExempt: "gateway"/);
    assert.throws(() => resolveOptions({ ...base, tls: { certFile: '/nonexistent/cert.pem', keyFile: '/nonexistent/key.pem' } }), /ENOENT/);
  });
});
