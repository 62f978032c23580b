// passes: embedded, cluster
// The rate limiter cannot be reset or bloated from outside (issue 23, item 6):
// made-up slugs neither create keys nor reset anyone's window, long keys are
// hashed, and a full table refuses new subjects instead of evicting live ones.
import { RedisClient } from 'bun';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { RateLimiter } from '../src/http/ratelimit.ts';
import type { TestApp } from './harness.ts';
import { World } from './world.ts';

/** The rate-limit windows the app holds: in this process's memory, or (with EASEL_REDIS_URL, the cluster pass) in Redis, every node's. */
async function heldWindows(app: TestApp): Promise<number> {
  const redis = app.ctx.config.redis;
  if (!redis) return app.ctx.limiter.size;
  const client = new RedisClient(redis.url);
  try {
    return ((await client.send('KEYS', ['easel:rl:*'])) as string[]).length;
  } finally {
    client.close();
  }
}

describe('RateLimiter', () => {
  test('a full table keeps every live window: new subjects are refused, nobody is reset', () => {
    let now = 1_000_000;
    let reports = 0;
    const limiter = new RateLimiter(
      true,
      5,
      () => now,
      () => reports++,
    );
    for (let i = 0; i < 2; i++) expect(limiter.hit('victim', 2).allowed).toBe(true);
    expect(limiter.hit('victim', 2).allowed).toBe(false);
    for (let i = 0; i < 4; i++) expect(limiter.hit(`attacker-${i}`, 2).allowed).toBe(true);
    // Full: a flood of new keys is refused and evicts nothing.
    for (let i = 4; i < 1000; i++) expect(limiter.hit(`attacker-${i}`, 2).allowed).toBe(false);
    expect(limiter.size).toBe(5);
    expect(reports).toBe(1);
    expect(limiter.hit('victim', 2).allowed).toBe(false);
    // The next window: finished windows make room again.
    now += 60_000;
    expect(limiter.hit('newcomer', 2).allowed).toBe(true);
    expect(limiter.hit('victim', 2).allowed).toBe(true);
  });

  test('a 12 KB key is stored as its hash: one entry, counted like any key', () => {
    const limiter = new RateLimiter(true, 100);
    const long = 'canvas:' + 'x'.repeat(12 * 1024);
    expect(limiter.hit(long, 1).allowed).toBe(true);
    expect(limiter.hit(long, 1).allowed).toBe(false);
    expect(limiter.hit(long + 'y', 1).allowed).toBe(true);
    expect(limiter.size).toBe(2);
  });
});

describe('the runtime rate limit keys by caller and resolved canvas', () => {
  const w = new World({ reset: 'none', env: { EASEL_RATELIMIT_ENABLED: 'true', EASEL_RATELIMIT_CANVAS_API_PER_MIN: '5' } });
  beforeAll(() => w.start());
  afterAll(() => w.app.close());

  test('unknown slugs count against the caller under one key, and never reset the window of a real canvas', async () => {
    const sizeBefore = await heldWindows(w.app);
    for (let i = 0; i < 5; i++) expect((await w.request('viewer', `/v1/c/${w.canvas.slug}/me`)).status).toBe(200);
    expect((await w.request('viewer', `/v1/c/${w.canvas.slug}/me`)).status).toBe(429);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      statuses.push((await w.request('viewer', `/v1/c/made-up-${i}-${'z'.repeat(i * 200)}/me`)).status);
    }
    // The first five made-up slugs are 404s; then the caller's one "unknown canvas" window is spent.
    expect(statuses.slice(0, 5)).toEqual([404, 404, 404, 404, 404]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    // Two keys in all: the real canvas and "unknown", both this viewer's.
    expect((await heldWindows(w.app)) - sizeBefore).toBe(2);
    expect((await w.request('viewer', `/v1/c/${w.canvas.slug}/me`)).status).toBe(429);
  });
});
