// The one bounded cache (src/cache/lru.ts): bounded by entries and by weight,
// oldest first, with `get` refreshing recency and `peek` leaving it alone.
import { expect, test } from 'bun:test';
import { LruCache } from '../src/cache/lru.ts';

const keys = <V>(c: LruCache<string, V>) => [...c.entries()].map(([k]) => k);

test('past maxEntries the least recently used entry goes; peek does not count as a use', () => {
  const c = new LruCache<string, number>({ maxEntries: 3 });
  for (const k of ['a', 'b', 'c']) c.set(k, 1);
  expect(c.get('a')).toBe(1);
  expect(c.peek('b')).toBe(1);
  c.set('d', 1);
  expect(keys(c)).toEqual(['c', 'a', 'd']);
  expect(c.size).toBe(3);
});

test('storing a key again makes it the newest and replaces its weight', () => {
  const c = new LruCache<string, string>({ maxEntries: 10, maxWeight: 10, weigh: (v) => v.length });
  c.set('a', 'xxxx');
  c.set('b', 'xxxx');
  c.set('a', 'xx');
  expect(keys(c)).toEqual(['b', 'a']);
  expect(c.weight).toBe(6);
  c.set('c', 'xxxxx');
  expect(keys(c)).toEqual(['a', 'c']);
  expect(c.weight).toBe(7);
});

test('a value heavier than the whole bound is not kept; delete and clear keep the weight right', () => {
  const c = new LruCache<string, string>({ maxEntries: 10, maxWeight: 3, weigh: (v) => v.length });
  c.set('big', 'xxxx');
  expect(c.size).toBe(0);
  expect(c.weight).toBe(0);
  c.set('a', 'x');
  c.set('b', 'xx');
  expect(c.delete('a')).toBe(true);
  expect(c.delete('a')).toBe(false);
  expect(c.weight).toBe(2);
  c.clear();
  expect(c.weight).toBe(0);
  expect(c.get('b')).toBeUndefined();
});

test('entries can be deleted while iterating (invalidation by a predicate)', () => {
  const c = new LruCache<number, number>({ maxEntries: 100 });
  for (let i = 0; i < 10; i++) c.set(i, i % 2);
  for (const [k, v] of c.entries()) if (v === 1) c.delete(k);
  expect([...c.entries()].map(([k]) => k)).toEqual([0, 2, 4, 6, 8]);
});
