import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Type } from '@sinclair/typebox';
import { conflict } from '../errors.js';
import { createHttpServer, loadUws } from '../rpc/index.js';
import { registerApiReference } from './api-reference.js';
import { defineRoute } from '../host/declared-route.js';
import { mountRoutes, servedRoutes } from './mount-routes.js';
import { openApiDocument } from './openapi.js';
import { RouteTable } from '../host/route-table.js';
import { VALIDATE_RESPONSES_ENV } from './response-check.js';

const log = pino({ level: 'silent' });

const honest = defineRoute({ method: 'GET', path: '/api/v1/honest', summary: 'answers as declared', responses: { 200: Type.Object({ n: Type.Integer() }) } });
const liar = defineRoute({ method: 'GET', path: '/api/v1/liar', summary: 'answers a text where it declares an integer', responses: { 200: Type.Object({ n: Type.Integer() }) } });
const wrongStatus = defineRoute({ method: 'GET', path: '/api/v1/conflict', summary: 'answers a status it does not declare', responses: { 200: Type.Object({}) } });

const uwsAvailable = loadUws().ok;

for (const backend of ['node', 'uws'] as const) {
  test(`${backend} backend: /api/v1/openapi.json lists the served routes, /docs is same-origin, a lying answer is a 500 under ${VALIDATE_RESPONSES_ENV}=1`, { skip: backend === 'uws' && !uwsAvailable ? 'uWebSockets.js is not available here' : false }, async () => {
    const before = process.env[VALIDATE_RESPONSES_ENV];
    process.env[VALIDATE_RESPONSES_ENV] = '1';
    const server = await createHttpServer({ host: '127.0.0.1', port: 0, corsAllowedOrigins: '', rateLimitPerSecond: 0, backend, logger: log });
    try {
      const routes = new RouteTable();
      routes.serve(honest, () => ({ n: 1 }));
      routes.serve(liar, () => ({ n: 'one' }));
      routes.serve(wrongStatus, () => {
        throw conflict('taken');
      });
      registerApiReference(routes, () => openApiDocument({ service: 'node', title: 't', version: 'v1', description: 'd', routes: servedRoutes(server) }));
      mountRoutes(server, routes, () => true, log);
      const { port } = await server.listen();
      const base = `http://127.0.0.1:${port}`;
      assert.deepEqual(await (await fetch(`${base}/api/v1/honest`)).json(), { n: 1 });
      const lie = await fetch(`${base}/api/v1/liar`);
      assert.equal(lie.status, 500);
      assert.match(((await lie.json()) as { error: string }).error, /response of GET \/api\/v1\/liar does not match its declaration: 200 body at \/n/);
      const undeclared = await fetch(`${base}/api/v1/conflict`);
      assert.equal(undeclared.status, 500);
      assert.match(((await undeclared.json()) as { error: string }).error, /answered status 409, which the route does not declare/);
      const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
      assert.deepEqual(Object.keys(doc.paths).sort(), ['/api/v1/conflict', '/api/v1/honest', '/api/v1/liar', '/api/v1/openapi.json']);
      const page = await fetch(`${base}/docs`);
      assert.equal(page.status, 200);
      const html = await page.text();
      const assets = [...html.matchAll(/<(?:script|link)[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      assert.ok(assets.length >= 3 && assets.every((a) => a.startsWith('/docs/')), `every asset is same-origin: ${assets.join(', ')}`);
      // decisions.md §87: every operation's method and path shows without a click, in the HTML itself.
      for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
        for (const method of Object.keys(methods)) assert.ok(html.includes(`<code>${method.toUpperCase()}</code> <code>${path}</code>`), `${method} ${path} on the page`);
      }
      for (const a of assets) assert.equal((await fetch(`${base}${a}`)).status, 200, a);
      assert.match(await (await fetch(`${base}/docs/init.js`)).text(), /validatorUrl: null/);
    } finally {
      await server.close();
      if (before === undefined) delete process.env[VALIDATE_RESPONSES_ENV];
      else process.env[VALIDATE_RESPONSES_ENV] = before;
    }
  });
}
