// The KV store on both engines: the same rules, and no lost or extra write
// when requests race (Postgres runs them truly at once, on a pool).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { KvStore, type KvSpace } from '../src/runtime/kv/store.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

describe.each(ENGINES)('KV store on %s', (_name, make) => {
  let engine: TestEngine;
  let kv: KvStore;
  let spaces = 0;
  const space = (): KvSpace => ({ canvasId: `c${++spaces}`, scope: 'shared', ownerId: '' });
  beforeAll(async () => {
    engine = await make();
    kv = new KvStore(engine.sql);
  });
  afterAll(() => engine.close());

  test('keys list in byte order, by prefix and after a cursor; spaces do not see each other', async () => {
    const s = space();
    const other: KvSpace = { ...s, scope: 'user', ownerId: 'u1' };
    for (const key of ['b', 'B', 'a/1', 'a/2', 'é', 'a%', 'a_']) expect(await kv.put(s, key, `"${key}"`, 100, 1)).toBe('ok');
    await kv.put(other, 'a/3', '1', 100, 1);
    const keys = async (prefix: string, cursor = '', limit = 100) => (await kv.list(s, { prefix, cursor, limit })).map((r) => r.key);
    expect(await keys('')).toEqual(['B', 'a%', 'a/1', 'a/2', 'a_', 'b', 'é']);
    expect(await keys('a/')).toEqual(['a/1', 'a/2']);
    expect(await keys('a%')).toEqual(['a%']);
    expect(await keys('', 'a/2', 2)).toEqual(['a_', 'b']);
    expect(await kv.count(s)).toBe(7);
    expect(await kv.get(s, 'é')).toBe('"é"');
    expect(await kv.get(other, 'b')).toBeNull();
    await kv.delete(s, 'é');
    await kv.delete(s, 'é');
    expect(await kv.get(s, 'é')).toBeNull();
  });

  test('the quota refuses a new key, never an update; increments keep the text a PUT would store', async () => {
    const s = space();
    expect(await kv.put(s, 'a', '1', 2, 1)).toBe('ok');
    expect(await kv.put(s, 'b', '{"x":1}', 2, 1)).toBe('ok');
    expect(await kv.put(s, 'c', '1', 2, 1)).toBe('key_limit');
    expect(await kv.increment(s, 'c', 1, 2, 1)).toBe('key_limit');
    expect(await kv.put(s, 'a', '2', 2, 1)).toBe('ok');
    expect(await kv.increment(s, 'a', -2, 2, 1)).toEqual({ value: '0' });
    expect(await kv.increment(s, 'a', 1e300, 2, 1)).toEqual({ value: '1e+300' });
    expect(await kv.increment(s, 'a', Number.MAX_VALUE, 2, 1)).toBe('not_finite');
    expect(await kv.increment(s, 'b', 1, 2, 1)).toBe('not_numeric');
    expect(await kv.get(s, 'a')).toBe('1e+300');
  });

  test('50 concurrent increments of one key (missing at first) count 50', async () => {
    const s = space();
    const results = await Promise.all(Array.from({ length: 50 }, () => kv.increment(s, 'n', 1, 10, 1)));
    expect(await kv.get(s, 'n')).toBe('50');
    expect(results.map((r) => (typeof r === 'object' ? Number(r.value) : r)).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  test('50 new keys racing for a quota of 10: exactly 10 stored', async () => {
    const s = space();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? kv.put(s, `k${i}`, '1', 10, 1) : kv.increment(s, `k${i}`, 1, 10, 1))),
    );
    expect(outcomes.filter((o) => o === 'key_limit')).toHaveLength(40);
    expect(await kv.count(s)).toBe(10);
  });

  test('a put racing increments of the same key lands between them, never inside one', async () => {
    const s = space();
    await kv.put(s, 'n', '0', 10, 1);
    await Promise.all([
      ...Array.from({ length: 20 }, () => kv.increment(s, 'n', 1, 10, 1)),
      kv.put(s, 'n', '1000', 10, 1),
      ...Array.from({ length: 20 }, () => kv.increment(s, 'n', 1, 10, 1)),
    ]);
    // Serially, the put replaces what the increments before it made and the later ones add to it;
    // a put inside an increment (after its read) would be overwritten, leaving at most 40.
    const final = Number(await kv.get(s, 'n'));
    expect(final).toBeGreaterThanOrEqual(1000);
    expect(final).toBeLessThanOrEqual(1040);
  });
});
