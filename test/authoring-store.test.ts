// Authoring's quota ledger on both engines: creations made at once cannot
// pass a quota together, pending ones count toward the total, a dropped one
// frees its place.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { AuthoringStore } from '../src/authoring/store.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

const DAY = Date.UTC(2026, 10, 26, 12);

describe.each(ENGINES)('authoring store on %s', (_name, make) => {
  let engine: TestEngine;
  let store: AuthoringStore;
  beforeAll(async () => {
    engine = await make();
    store = new AuthoringStore(engine.sql);
  });
  afterAll(() => engine.close());

  test('20 claims at once under a daily quota of 5: 5 pass, the rest are user_daily; the next day is fresh', async () => {
    const claims = await Promise.all(Array.from({ length: 20 }, () => store.claimCreation('daily', DAY, { daily: 5, total: 100 })));
    expect(claims.filter((c) => typeof c === 'object')).toHaveLength(5);
    expect(claims.filter((c) => c === 'user_daily')).toHaveLength(15);
    // Dropped claims still count for the day (the ledger counts attempts); a day later there is room.
    expect(await store.claimCreation('daily', DAY + 24 * 3600_000, { daily: 5, total: 100 })).toMatchObject({ claim: expect.any(String) });
  });

  test('pending claims count toward the total until settled or dropped', async () => {
    const limits = { daily: 100, total: 3 };
    const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimCreation('total', DAY, limits)));
    const won = claims.filter((c): c is { claim: string } => typeof c === 'object');
    expect(won).toHaveLength(3);
    expect(claims.filter((c) => c === 'user_total')).toHaveLength(7);
    await store.dropClaim(won[0]!.claim);
    const again = await store.claimCreation('total', DAY, limits);
    expect(again).toMatchObject({ claim: expect.any(String) });
    // A settled claim whose canvas exists counts as the authored canvas it became.
    await engine.sql.run(
      "INSERT INTO users (id, email, name, created_at) VALUES ('total', 'total@example.com', 'T', 0) ON CONFLICT DO NOTHING",
    );
    await engine.sql.run(
      "INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at) VALUES ('made', 'made', 't', 'total', 'k', 't', 0, 0)",
    );
    await store.settleClaim(won[1]!.claim, 'made');
    await store.insert({
      canvasId: 'made',
      sourceCanvasId: 'src',
      createdBy: 'total',
      access: 'private',
      tags: ['a'],
      metadata: { k: 1 },
      revokedAt: null,
    });
    expect(await store.claimCreation('total', DAY, limits)).toBe('user_total');
    expect(await store.byCanvas('made')).toMatchObject({ createdBy: 'total', tags: ['a'], metadata: { k: 1 } });
    await store.update('made', { tags: ['b'], revokedAt: 5 });
    expect(await store.byCanvas('made')).toMatchObject({ tags: ['b'], revokedAt: 5, access: 'private' });
    expect((await store.managedBy('total')).map((r) => r.canvasId)).toEqual(['made']);
  });
});
