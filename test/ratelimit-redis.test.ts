// The Redis adapter of the rate-limit port (src/ratelimit/), against a real
// redis-server: hits from two nodes racing on one window never pass the
// limit together, a window is one key that expires with it, long keys are
// hashed, a switched-off limiter never asks Redis, and a Redis that is
// silent or gone costs a request at most the hit timeout: it is answered
// from the node's memory. Concurrency slots the same: never more than the
// limit across nodes, leases that run out on Redis's clock.
import { RedisClient } from 'bun';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { loadConfig } from '../src/config.ts';
import { EventBus, type EventMap } from '../src/events.ts';
import { RateLimiter } from '../src/http/ratelimit.ts';
import { createLogger } from '../src/log.ts';
import { rateLimitsFor } from '../src/ratelimit/choose.ts';
import type { RateDecision } from '../src/ratelimit/port.ts';
import { RedisRateLimits, type RedisRateLimitsOptions } from '../src/ratelimit/redis-limits.ts';
import { slotKey } from '../src/ratelimit/redis-slots.ts';
import { CLOCK_SKEW_MS, windowKey } from '../src/ratelimit/redis-window.ts';
import { ManualClock } from './manual-clock.ts';
import { createTestRedis, startRedisServer, type RedisServer } from './support/redis-server.ts';

const MINUTE = 60_000;

/** A node's rate limits on `url`, with what it logged and which fallbacks it signalled. */
async function node(url: string, clock: ManualClock, options: RedisRateLimitsOptions = {}) {
  const logs: Array<Record<string, unknown>> = [];
  const fallbacks: Array<EventMap['ratelimit.fallback']['reason']> = [];
  const events = new EventBus();
  events.on('ratelimit.fallback', (e) => void fallbacks.push(e.reason));
  const config = loadConfig({ EASEL_DATA_DIR: '/tmp', EASEL_REDIS_URL: url });
  const deps = { now: clock.now, log: createLogger('debug', (line) => void logs.push(JSON.parse(line))), events };
  const limits = new RedisRateLimits(config.redis!, deps, options);
  await limits.start();
  return { limits, logs, fallbacks, events };
}

describe('counting in Redis', () => {
  const clock = new ManualClock();
  let url: string;
  let redis: RedisClient;
  let a: Awaited<ReturnType<typeof node>>;
  let b: Awaited<ReturnType<typeof node>>;
  beforeAll(async () => {
    url = await createTestRedis();
    redis = new RedisClient(url);
    a = await node(url, clock);
    b = await node(url, clock);
    clock.advance(15_000);
  });
  afterAll(() => {
    a.limits.stop();
    b.limits.stop();
    redis.close();
  });

  test('50 hits at once from two nodes on a limit of 20: exactly 20 pass, and the counts say so', async () => {
    const counters = [a.limits.counter({ enabled: true, maxKeys: 10 }), b.limits.counter({ enabled: true, maxKeys: 10 })];
    const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => counters[i % 2]!.hit('race:one', 20)));
    expect(decisions.filter((d) => d.allowed).length).toBe(20);
    expect(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const refused = decisions.find((d) => !d.allowed)!;
    const resetAt = clock.now() - (clock.now() % MINUTE) + MINUTE;
    expect(refused).toEqual({ allowed: false, limit: 20, remaining: 0, resetAt, retryAfter: 45 });
    // Nothing was counted in memory.
    expect(counters.map((c) => c.size)).toEqual([0, 0]);
    expect([...a.fallbacks, ...b.fallbacks]).toEqual([]);
  });

  test('a window is one key, named after where it starts, that expires with it (plus the clock margin)', async () => {
    const counter = a.limits.counter({ enabled: true, maxKeys: 10 });
    await counter.hit('expiry:one', 5);
    const start = clock.now() - (clock.now() % MINUTE);
    const ttl = (await redis.send('PTTL', [windowKey('expiry:one', start)])) as number;
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(start + MINUTE - clock.now() + CLOCK_SKEW_MS);
    // The next window is another key: it starts from zero.
    clock.advance(MINUTE);
    expect(await counter.hit('expiry:one', 1)).toMatchObject({ allowed: true, remaining: 0 });
  });

  test('a 12 KB key is stored as its hash', async () => {
    const counter = a.limits.counter({ enabled: true, maxKeys: 10 });
    const long = 'canvas:' + 'x'.repeat(12 * 1024);
    expect((await counter.hit(long, 1)).allowed).toBe(true);
    expect((await counter.hit(long, 1)).allowed).toBe(false);
    expect((await counter.hit(long + 'y', 1)).allowed).toBe(true);
    const start = clock.now() - (clock.now() % MINUTE);
    expect(windowKey(long, start).length).toBeLessThan(100);
    expect(await redis.send('EXISTS', [windowKey(long, start)])).toBe(1);
  });

  test('a limiter switched off (EASEL_RATELIMIT_ENABLED=false) answers at once and never asks Redis', async () => {
    const off = a.limits.counter({ enabled: false, maxKeys: 10 });
    expect(off).toBeInstanceOf(RateLimiter);
    const d = off.hit('off:one', 1) as RateDecision;
    expect(d.allowed && (off.hit('off:one', 1) as RateDecision).allowed).toBe(true);
    expect(await redis.send('KEYS', ['easel:rl:off:*'])).toEqual([]);
  });

  test('30 takes at once from two nodes on a limit of 5: exactly 5 slots, one more once one is given back', async () => {
    const pools = [a.limits.slots(), b.limits.slots()];
    const taken = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => ({ pool: pools[i % 2]!, release: await pools[i % 2]!.take('race:slots', 5, 60_000) })),
    );
    const held = taken.filter((t) => t.release !== null);
    expect(held.length).toBe(5);
    expect(await redis.send('ZCARD', [slotKey('race:slots')])).toBe(5);
    expect(await pools[1]!.take('race:slots', 5, 60_000)).toBeNull();
    held[0]!.release!();
    held[0]!.release!(); // once only
    // Through the same node's connection: Redis answers its commands in order, so the give-back lands first.
    const again = await held[0]!.pool.take('race:slots', 5, 60_000);
    expect(again).not.toBeNull();
    expect(await pools[0]!.take('race:slots', 5, 60_000)).toBeNull();
    for (const release of [...held.slice(1).map((h) => h.release!), again!]) release();
  });

  test("a lease runs out on Redis's clock: a dead node's slot is taken again after it, and the pool's key expires", async () => {
    const pool = a.limits.slots();
    // Taken and never given back, as a node killed mid-request leaves it.
    expect(await pool.take('lease:slots', 1, 60_000)).not.toBeNull();
    const [[, score]] = (await redis.send('ZRANGE', [slotKey('lease:slots'), '0', '-1', 'WITHSCORES'])) as [[string, number]];
    const [seconds, micros] = (await redis.send('TIME', [])) as [string, string];
    const redisNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    // Scored at Redis's now plus the lease (the node's clock plays no part).
    expect(Number(score) - redisNow).toBeGreaterThan(59_000);
    expect(Number(score) - redisNow).toBeLessThanOrEqual(60_000);
    expect(await redis.send('PTTL', [slotKey('lease:slots')])).toBeGreaterThan(59_000);
    expect(await b.limits.slots().take('lease:slots', 1, 60_000)).toBeNull();
    // A lease of 0 ms has run out by the next take.
    await redis.send('DEL', [slotKey('lease:slots')]);
    expect(await pool.take('lease:slots', 1, 0)).not.toBeNull();
    expect(await b.limits.slots().take('lease:slots', 1, 60_000)).not.toBeNull();
  });

  test('without EASEL_REDIS_URL every limiter is in memory, answering plain values (no Promise on the embedded path)', () => {
    const limits = rateLimitsFor(loadConfig({ EASEL_DATA_DIR: '/tmp' }), {
      now: clock.now,
      log: createLogger('silent'),
      events: new EventBus(),
    });
    expect(limits.kind).toBe('memory');
    const counter = limits.counter({ enabled: true, maxKeys: 10 });
    expect(counter).toBeInstanceOf(RateLimiter);
    expect(counter.hit('plain', 1)).not.toBeInstanceOf(Promise);
  });
});

describe('a Redis that is silent or gone (each test has a server of its own)', () => {
  const clock = new ManualClock();
  let server: RedisServer;
  beforeEach(async () => {
    server = await startRedisServer();
  });
  afterEach(() => server.stop());

  test('silent (paused): the hit gives up after its timeout and counts in memory; the next ones leave Redis alone meanwhile', async () => {
    const n = await node(server.url(0), clock, { hitTimeoutMs: 50, backoffMs: 60_000 });
    const control = new RedisClient(server.url(0));
    try {
      const counter = n.limits.counter({ enabled: true, maxKeys: 10 });
      expect((await counter.hit('quiet:one', 2)).allowed).toBe(true);
      // Every client but this one's own commands wait until the pause ends (long after this test).
      await control.send('CLIENT', ['PAUSE', '1500', 'ALL']);
      const decisions = [await counter.hit('quiet:one', 2), await counter.hit('quiet:one', 2), await counter.hit('quiet:one', 2)];
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(n.fallbacks).toEqual(['timeout', 'backing-off', 'backing-off']);
      expect(counter.size).toBe(1);
      expect(n.logs.filter((l) => l.level === 'warn').map((l) => [l.msg, l.reason, l.hits])).toEqual([
        [
          'rate limits: Redis cannot count; each node counts in its own memory until it can (limits hold per node, not across nodes)',
          'timeout',
          1,
        ],
      ]);
    } finally {
      n.limits.stop();
      control.close();
    }
  });

  test('gone: hits are answered from memory at once, /healthz would say so, one log line a minute; it comes back on its own', async () => {
    const n = await node(server.url(2), clock);
    try {
      const counter = n.limits.counter({ enabled: true, maxKeys: 10 });
      expect((await counter.hit('gone:one', 3)).remaining).toBe(2);
      await server.stop();
      const during = [];
      for (let i = 0; i < 4; i++) during.push(await counter.hit('gone:one', 3));
      // Memory starts its own count: the limit holds on this node alone.
      expect(during.map((d) => d.allowed)).toEqual([true, true, true, false]);
      // Failed at once (no connection, or a command cut off), never by waiting out the timeout.
      expect(n.fallbacks.filter((r) => r !== 'unavailable' && r !== 'error')).toEqual([]);
      expect(await n.limits.check()).toBe(false);
      // Slots too: counted in this node's memory meanwhile.
      const slots = n.limits.slots();
      const first = await slots.take('gone:slots', 1, 60_000);
      expect(first).not.toBeNull();
      expect(await slots.take('gone:slots', 1, 60_000)).toBeNull();
      first!();
      expect(n.logs.filter((l) => l.level === 'warn').length).toBe(1);
      clock.advance(MINUTE);
      await counter.hit('gone:one', 3);
      // A minute later, one more line, counting the hits since the first.
      expect(n.logs.filter((l) => l.level === 'warn').map((l) => l.hits)).toEqual([1, 6]);

      const back = new Promise<void>((resolve) => n.events.on('ratelimit.redis-connected', () => resolve()));
      await server.start();
      await back;
      expect(await n.limits.check()).toBe(true);
      expect(await counter.hit('gone:one', 3)).toMatchObject({ allowed: true, remaining: 2 });
    } finally {
      n.limits.stop();
    }
  });
});
