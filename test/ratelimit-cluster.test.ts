// passes: embedded — starts its own Redis
// Rate limits across two nodes (issue 21 item 3): two app instances in this
// process share one data directory and one Redis (test/support/cluster.ts),
// each on its own loopback port, with one manual clock. Requests alternate
// between the nodes: a limit of L per window lets exactly L through, the
// next is refused on either node with the spec's code and headers, and the
// next window opens again. With Redis down a node still answers (from its
// own memory, at most L per node); without Redis each node counts alone.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATE_ATTEMPTS_PER_MIN } from '../src/serve/canvas-server.ts';
import { zipOf } from './deploy-fixtures.ts';
import { expectCode, expectError } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { nextEvent } from './signals.ts';
import { startCluster, type Cluster } from './support/cluster.ts';
import { startRedisServer, type RedisServer } from './support/redis-server.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const LIMIT = { deploy: 4, canvas: 5, createsPerHour: 3 };
const ENV = {
  EASEL_RATELIMIT_DEPLOY_PER_MIN: String(LIMIT.deploy),
  EASEL_RATELIMIT_CANVAS_API_PER_MIN: String(LIMIT.canvas),
  EASEL_USER_CANVAS_CREATES_PER_HOUR: String(LIMIT.createsPerHour),
};

interface Created {
  id: string;
  slug: string;
  apiKey: string;
}

async function createCanvas(node: TestApp, cookie: string, title: string): Promise<Response> {
  return node.request('/api/canvases', { method: 'POST', cookie, json: { title } });
}

async function newCanvas(node: TestApp, cookie: string, title: string): Promise<Created> {
  const res = await createCanvas(node, cookie, title);
  expect(res.status).toBe(201);
  return body(res);
}

let deploys = 0;
function deploy(node: TestApp, c: Created): Promise<Response> {
  return node.request(`/v1/canvases/${c.id}/deploy`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${c.apiKey}`, 'content-type': 'application/zip' },
    // Every deploy a new release: none is `already_current`.
    body: zipOf({ 'index.html': `<p>deploy ${++deploys}</p>` }),
  });
}

const me = (node: TestApp, c: Created, cookie: string) => node.request(`/v1/c/${c.slug}/me`, { cookie });

/** Statuses of `count` requests sent alternately to each node, A first. */
async function alternating(nodes: TestApp[], count: number, send: (node: TestApp) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await send(nodes[i % nodes.length]!);
    await res.body?.cancel();
    statuses.push(res.status);
  }
  return statuses;
}

const times = (n: number, status: number) => Array<number>(n).fill(status);

/** Where the clock's current window of `windowMs` ends, and the Retry-After that gives. */
function windowEnd(clock: ManualClock, windowMs: number): { resetAt: number; retryAfter: string } {
  const now = clock.now();
  const resetAt = now - (now % windowMs) + windowMs;
  return { resetAt, retryAfter: String(Math.ceil((resetAt - now) / 1000)) };
}

/** The runtime API's 429: RATE_LIMITED with Retry-After and the X-RateLimit headers of the shared window. */
async function expectRuntimeLimited(res: Response, clock: ManualClock, limit: number): Promise<void> {
  await expectCode(res, 429, 'RATE_LIMITED');
  const { resetAt, retryAfter } = windowEnd(clock, MINUTE);
  expect({
    retryAfter: res.headers.get('retry-after'),
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  }).toEqual({ retryAfter, limit: String(limit), remaining: '0', reset: String(resetAt / 1000) });
}

describe('two nodes, one Redis: one window per caller', () => {
  const clock = new ManualClock();
  let cluster: Cluster;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    cluster = await startCluster({ env: ENV, now: clock.now, scheduler: clock.scheduler });
    ({ a, b } = cluster);
    // Mid-window, so Retry-After is not a whole window.
    clock.advance(10_000);
  });
  afterAll(() => cluster.close());

  test('deploy class: L deploys over both nodes pass, the next is 429 {error: rate_limited} on either; the next minute opens', async () => {
    const owner = await a.signIn('deployer@example.com', 'Deployer');
    const c = await newCanvas(a, owner, 'Deploys');
    expect(await alternating([a, b], LIMIT.deploy, (node) => deploy(node, c))).toEqual(times(LIMIT.deploy, 200));
    for (const node of [a, b]) {
      const over = await deploy(node, c);
      await expectError(over, 429, 'rate_limited');
      expect(over.headers.get('retry-after')).toBe(windowEnd(clock, MINUTE).retryAfter);
    }
    clock.advance(MINUTE);
    expect(await alternating([b, a], LIMIT.deploy, (node) => deploy(node, c))).toEqual(times(LIMIT.deploy, 200));
    await expectError(await deploy(b, c), 429, 'rate_limited');
  });

  test('canvas class: L runtime requests over both nodes pass, the next is 429 RATE_LIMITED with the X-RateLimit headers on either', async () => {
    const owner = await a.signIn('runtime@example.com', 'Runtime');
    const c = await newCanvas(b, owner, 'Runtime');
    expect(await alternating([a, b], LIMIT.canvas, (node) => me(node, c, owner))).toEqual(times(LIMIT.canvas, 200));
    await expectRuntimeLimited(await me(b, c, owner), clock, LIMIT.canvas);
    await expectRuntimeLimited(await me(a, c, owner), clock, LIMIT.canvas);
    // Another person on the same canvas has a window of their own.
    const other = await b.signIn('runtime-2@example.com', 'Runtime 2');
    await a.request(`/api/canvases/${c.id}/members`, {
      method: 'PUT',
      cookie: owner,
      json: { email: 'runtime-2@example.com', role: 'viewer' },
    });
    expect((await me(a, c, other)).status).toBe(200);
    clock.advance(MINUTE);
    expect(await alternating([b, a], LIMIT.canvas, (node) => me(node, c, owner))).toEqual(times(LIMIT.canvas, 200));
    await expectRuntimeLimited(await me(a, c, owner), clock, LIMIT.canvas);
  });

  test('password gate: a visitor guessing on both nodes gets the per-visitor limit once, not once per node', async () => {
    const owner = await a.signIn('gated@example.com', 'Gated');
    const c = await newCanvas(a, owner, 'Gated');
    const set = await a.request(`/api/canvases/${c.id}`, {
      method: 'PATCH',
      cookie: owner,
      json: { accessMode: 'public_link', password: 'right' },
    });
    expect(set.status).toBe(200);
    expect((await deploy(a, c)).status).toBe(200);
    const guesser = await b.signIn('guesser@example.com', 'Guesser');
    // An empty password is a wrong one that costs no argon2 time; it counts all the same.
    const guess = (node: TestApp, password = '') =>
      node.request(`/c/${c.slug}/__easel/gate`, {
        method: 'POST',
        cookie: guesser,
        body: new URLSearchParams({ password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    expect(await alternating([a, b], GATE_ATTEMPTS_PER_MIN, (node) => guess(node))).toEqual(times(GATE_ATTEMPTS_PER_MIN, 403));
    for (const node of [a, b]) {
      const over = await guess(node, 'right');
      expect([over.status, over.headers.get('retry-after')]).toEqual([429, windowEnd(clock, MINUTE).retryAfter]);
      expect(over.headers.get('set-cookie')).toBeNull();
    }
    clock.advance(MINUTE);
    expect((await guess(b, 'right')).status).toBe(303);
  });

  test('canvas creation per hour: L creations over both nodes pass, the next is 429 on either; the next hour opens', async () => {
    const creator = await b.signIn('creator@example.com', 'Creator');
    expect(await alternating([a, b], LIMIT.createsPerHour, (node) => createCanvas(node, creator, 'One more'))).toEqual(
      times(LIMIT.createsPerHour, 201),
    );
    for (const node of [b, a]) {
      const over = await createCanvas(node, creator, 'Too many');
      await expectError(over, 429, 'rate_limited');
      expect(over.headers.get('retry-after')).toBe(windowEnd(clock, HOUR).retryAfter);
    }
    clock.advance(HOUR);
    expect((await createCanvas(b, creator, 'Next hour')).status).toBe(201);
  });

  test('/healthz reports Redis as the coordination backend, answering', async () => {
    for (const node of [a, b]) {
      const res = await node.request('/healthz');
      expect([res.status, (await body(res)).backends.coordination]).toEqual([200, 'redis']);
    }
  });
});

describe('Redis down: each node answers from its own memory, never a 500', () => {
  const clock = new ManualClock();
  let redis: RedisServer;
  let cluster: Cluster;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    cluster = await startCluster({ env: ENV, now: clock.now, scheduler: clock.scheduler, redisUrl: redis.url(1) });
    ({ a, b } = cluster);
  });
  afterAll(async () => {
    // Back before the nodes stop, so realtime can say goodbye to it.
    await redis.start();
    await cluster.close();
    await redis.stop();
  });

  test('while Redis is gone each node enforces the limit alone (and says so once); when it is back, the window is shared again', async () => {
    const owner = await a.signIn('outage@example.com', 'Outage');
    const c = await newCanvas(a, owner, 'Outage');
    expect(await alternating([a, b], 2, (node) => me(node, c, owner))).toEqual([200, 200]);

    await redis.stop();
    for (const node of [a, b]) {
      const health = await node.request('/healthz');
      expect([health.status, (await body(health)).failed]).toEqual([503, ['coordination']]);
    }
    // Every request is answered: L per node from its own memory, then 429 with the same headers.
    for (const node of [a, b]) {
      expect(await alternating([node], LIMIT.canvas, (n) => me(n, c, owner))).toEqual(times(LIMIT.canvas, 200));
      await expectRuntimeLimited(await me(node, c, owner), clock, LIMIT.canvas);
    }
    // The deploy class too: no 500 while the shared count is out of reach.
    expect((await deploy(b, c)).status).toBe(200);
    // One warning per node for the whole minute of fallbacks, not one per request.
    for (const node of [a, b]) {
      expect(node.logs.filter((l) => String(l.msg).startsWith('rate limits: Redis cannot count')).length).toBe(1);
    }

    const back = [a, b].map((node) => nextEvent(node, 'ratelimit.redis-connected'));
    await redis.start();
    await Promise.all(back);
    for (const node of [a, b]) expect((await node.request('/healthz')).status).toBe(200);
    clock.advance(MINUTE);
    expect(await alternating([b, a], LIMIT.canvas, (node) => me(node, c, owner))).toEqual(times(LIMIT.canvas, 200));
    await expectRuntimeLimited(await me(a, c, owner), clock, LIMIT.canvas);
    await expectRuntimeLimited(await me(b, c, owner), clock, LIMIT.canvas);
    for (const node of [a, b]) expect(node.logs.some((l) => l.msg === 'rate limits: counting in Redis again')).toBe(true);
  });
});

describe('without Redis each node counts alone', () => {
  const clock = new ManualClock();
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-two-alone-'));
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp({ dataDir, now: clock.now, scheduler: clock.scheduler, env: ENV });
    b = await startTestApp({ dataDir, now: clock.now, scheduler: clock.scheduler, env: ENV });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('L per node: the same caller gets L on A and L more on B (why several nodes need EASEL_REDIS_URL)', async () => {
    const owner = await a.signIn('alone@example.com', 'Alone');
    const c = await newCanvas(a, owner, 'Alone');
    for (const node of [a, b]) {
      expect(await alternating([node], LIMIT.canvas, (n) => me(n, c, owner))).toEqual(times(LIMIT.canvas, 200));
      await expectRuntimeLimited(await me(node, c, owner), clock, LIMIT.canvas);
    }
    expect((await body(await a.request('/healthz'))).backends.coordination).toBe('local');
  });
});
