// The submissions store on both engines: quotas that hold when people submit
// at once, and counts (kept by triggers) that follow every removal.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SubmissionStore, type SubmissionSpace } from '../src/runtime/submissions/store.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

describe.each(ENGINES)('submissions store on %s', (_name, make) => {
  let engine: TestEngine;
  let store: SubmissionStore;
  let n = 0;
  const space = (): SubmissionSpace => ({ canvasId: `c${++n}`, collection: 'poll' });
  beforeAll(async () => {
    engine = await make();
    store = new SubmissionStore(engine.sql);
  });
  afterAll(() => engine.close());

  test('30 people submitting at once into a canvas quota of 10: 10 created, 20 refused, and a replacement still passes', async () => {
    const s = space();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.upsert(s, `u${i}`, '1', 1, { perCanvas: 10, perAuthor: 5 })),
    );
    const created = outcomes.filter((o) => typeof o === 'object' && o.created);
    expect(created).toHaveLength(10);
    expect(outcomes.filter((o) => o === 'canvas_limit')).toHaveLength(20);
    const first = (created[0] as { submission: { userId: string } }).submission.userId;
    expect(await store.upsert(s, first, '2', 2, { perCanvas: 10, perAuthor: 5 })).toEqual({
      submission: { userId: first, value: '2', updatedAt: 2 },
      created: false,
    });
    expect(await store.page(s, '', 100)).toHaveLength(10);
  });

  test('one person submitting 20 times at once keeps one submission, created once', async () => {
    const s = space();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.upsert(s, 'u', String(i), i, { perCanvas: 100, perAuthor: 5 })),
    );
    expect(outcomes.filter((o) => typeof o === 'object' && o.created)).toHaveLength(1);
    expect(await store.page(s, '', 100)).toHaveLength(1);
  });

  test('the per-person quota spans collections; removals free room on both counts', async () => {
    const a = space();
    const b: SubmissionSpace = { ...a, collection: 'other' };
    const quotas = { perCanvas: 100, perAuthor: 1 };
    expect(await store.upsert(a, 'u', '1', 1, quotas)).toMatchObject({ created: true });
    expect(await store.upsert(b, 'u', '1', 1, quotas)).toBe('author_limit');
    expect(await store.delete(a, 'u')).toBe(true);
    expect(await store.delete(a, 'u')).toBe(false);
    expect(await store.upsert(b, 'u', '1', 1, quotas)).toMatchObject({ created: true });
    expect(await store.upsert(b, 'v', '1', 1, quotas)).toMatchObject({ created: true });
    expect((await store.page(b, 'u', 10)).map((r) => r.userId)).toEqual(['v']);
    expect(await store.deleteAll(b)).toBe(2);
    expect(await store.get(b, 'v')).toBeNull();
    expect(await store.upsert(a, 'u', '1', 1, { perCanvas: 1, perAuthor: 1 })).toMatchObject({ created: true });
  });
});
