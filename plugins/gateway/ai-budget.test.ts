import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { AiBudget, aiRateLimited } from './ai-budget.js';
import type { RpcRequest } from '../../kernel/sdk.js';

const allowed = async (b: AiBudget, ip = '10.0.0.1'): Promise<boolean> => (await b.consume(ip)).allowed;

test('a sliding 60 s window: rpm requests in any 60 s, each slot free again exactly 60 s after its request', async (t) => {
  mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 });
  t.after(() => mock.timers.reset());
  const b = new AiBudget(3);
  assert.equal(await allowed(b), true); // t = 0
  mock.timers.tick(30_000);
  assert.equal(await allowed(b), true); // t = 30 s
  assert.equal(await allowed(b), true); // t = 30 s
  const refused = await b.consume('10.0.0.1');
  assert.deepEqual(refused, { allowed: false, retryAfterMs: 30_000 }, 'the oldest request leaves the window 30 s from now');
  mock.timers.tick(29_999);
  assert.equal(await allowed(b), false, '1 ms before the first request is 60 s old, three are still in the window');
  mock.timers.tick(1);
  assert.equal(await allowed(b), true, 'at 60 s the first request has left the window');
  assert.equal(await allowed(b), false, 'the two of t = 30 s are still in it');
  // A calendar-minute (fixed window) limiter would allow 3 more right after t = 60 s: the window slides instead.
  mock.timers.tick(29_999);
  assert.equal(await allowed(b), false);
  mock.timers.tick(1);
  assert.equal(await allowed(b), true);
  assert.equal(await allowed(b), true);
  assert.equal(await allowed(b), false);
});

test('the budget is per IP, refused requests do not extend the window, and 0 turns it off', async (t) => {
  mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 5_000 });
  t.after(() => mock.timers.reset());
  const b = new AiBudget(1);
  assert.equal(await allowed(b, 'a'), true);
  assert.equal(await allowed(b, 'b'), true, 'another IP has its own budget');
  for (let i = 0; i < 5; i++) {
    mock.timers.tick(10_000);
    assert.equal(await allowed(b, 'a'), false);
  }
  mock.timers.tick(10_000);
  assert.equal(await allowed(b, 'a'), true, 'free 60 s after the one admitted request, however often it was refused meanwhile');
  const off = new AiBudget(0);
  for (let i = 0; i < 100; i++) assert.equal(await allowed(off), true);
});

test('concurrent requests of one IP never share a slot', async () => {
  const b = new AiBudget(4);
  const results = await Promise.all(Array.from({ length: 10 }, () => b.consume('c')));
  assert.equal(results.filter((r) => r.allowed).length, 4);
});

test('aiRateLimited answers 429 with Retry-After in whole seconds and the error of §52', async (t) => {
  mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 0 });
  t.after(() => mock.timers.reset());
  const b = new AiBudget(1);
  let served = 0;
  const handler = aiRateLimited(b, () => ++served);
  const req = { ip: '1.2.3.4' } as RpcRequest;
  assert.equal(await handler(req), 1);
  mock.timers.tick(58_500);
  const over = (await handler(req)) as { status: number; body: { error: string }; headers: Record<string, string> };
  assert.equal(over.status, 429);
  assert.equal(over.body.error, 'rate limit exceeded');
  assert.equal(over.headers['Retry-After'], '2', '1.5 s rounds up to 2: never a Retry-After of 0');
  assert.equal(served, 1);
});

test('constant work per request: a large budget answers from the ring, and IPs idle for 60 s are forgotten', async (t) => {
  mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 0 });
  t.after(() => mock.timers.reset());
  const b = new AiBudget(10_000);
  for (let i = 0; i < 10_000; i++) assert.equal(await allowed(b, 'busy'), true);
  assert.deepEqual(await b.consume('busy'), { allowed: false, retryAfterMs: 60_000 });
  for (let i = 0; i < 50; i++) await b.consume(`idle-${i}`);
  assert.equal(b.tracked, 51);
  mock.timers.tick(60_000);
  assert.equal(await allowed(b, 'fresh'), true);
  assert.equal(b.tracked, 1, 'every IP whose last request left the window is dropped');
});
