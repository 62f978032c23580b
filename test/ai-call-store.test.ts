// AI reservations on both engines: calls racing for the last of a budget see
// each other, whoever makes them; settling counts once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { AiCallStore, type NewAiCall, type SpendNow } from '../src/runtime/ai/store.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

const USAGE = { inputTokens: 10, outputTokens: 20, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

describe.each(ENGINES)('AI call store on %s', (_name, make) => {
  let engine: TestEngine;
  let store: AiCallStore;
  let n = 0;
  const call = (over: Partial<NewAiCall> = {}): NewAiCall => ({
    id: `call-${++n}`,
    canvasId: 'canvas',
    actorId: 'actor',
    actorKind: 'member',
    model: 'm',
    reservedUsd: 1,
    day: '2026-11-26',
    month: '2026-11',
    createdAt: 1,
    ...over,
  });
  /** Reserves unless `over(spend)` says the budget is reached. */
  const reserve = (c: NewAiCall, over: (s: SpendNow) => boolean) =>
    store
      .reserve(c, (spend) => {
        if (over(spend)) throw new Error('budget reached');
      })
      .then(
        () => true,
        () => false,
      );
  beforeAll(async () => {
    engine = await make();
    await engine.sql.run("INSERT INTO users (id, email, name, created_at) VALUES ('o', 'o@example.com', 'O', 0)");
    for (const id of ['canvas', 'c2', 'c3'])
      await engine.sql.run(
        "INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at) VALUES (?1, ?1, 't', 'o', ?1, 't', 0, 0)",
        id,
      );
    store = new AiCallStore(engine.sql, 'node-a');
  });
  afterAll(() => engine.close());

  test('20 calls of one person racing a $5 day (across canvases): 5 start', async () => {
    const canvases = ['canvas', 'c2', 'c3'];
    const started = await Promise.all(
      Array.from({ length: 20 }, (_, i) => reserve(call({ actorId: 'racer', canvasId: canvases[i % 3]! }), (s) => s.actorDay >= 5)),
    );
    expect(started.filter(Boolean)).toHaveLength(5);
  });

  test("20 people racing a canvas's $3 month: 3 start; settled costs replace reservations in the spend", async () => {
    const month = '2026-12';
    const started = await Promise.all(
      Array.from({ length: 20 }, (_, i) => reserve(call({ actorId: `p${i}`, canvasId: 'c2', month }), (s) => s.canvasMonth >= 3)),
    );
    expect(started.filter(Boolean)).toHaveLength(3);
    const first = (await engine.sql.all<{ id: string }>('SELECT id FROM ai_calls WHERE month = ?1 ORDER BY id', month))[0]!.id;
    expect(await store.settle(first, USAGE, 0.25, 'ok', 2)).toBe(true);
    expect(await store.settle(first, USAGE, 9, 'ok', 3)).toBe(false);
    let seen: SpendNow | undefined;
    await store.reserve(call({ canvasId: 'c2', month, actorId: 'late' }), (s) => void (seen = s));
    expect(seen!.canvasMonth).toBeCloseTo(2.25, 9);
    expect(await store.byId(first)).toMatchObject({ state: 'settled', costUsd: 0.25, outcome: 'ok', inputTokens: 10, settledAt: 2 });
  });

  test('a refused reservation leaves no row; orphans left by a stopped process settle at zero', async () => {
    const refused = call({ canvasId: 'c3' });
    expect(await reserve(refused, () => true)).toBe(false);
    expect(await store.byId(refused.id)).toBeNull();
    const orphan = call({ canvasId: 'c3' });
    await store.reserve(orphan, () => {});
    expect(await store.settleOrphans(5, null)).toBeGreaterThanOrEqual(1);
    expect(await store.byId(orphan.id)).toMatchObject({ state: 'settled', costUsd: 0, outcome: 'usage_timeout', settledAt: 5 });
  });

  test("on a cluster only dead nodes' reservations are orphans: this node's and live nodes' keep running", async () => {
    const live = new AiCallStore(engine.sql, 'node-live');
    const dead = new AiCallStore(engine.sql, 'node-dead');
    await engine.sql.run(
      "INSERT INTO nodes (id, started_at, heartbeat_at, with_redis) VALUES ('node-live', 0, 1000, 1), ('node-dead', 0, 10, 1)",
    );
    const [mine, theirs, gone] = [call({ canvasId: 'c3' }), call({ canvasId: 'c3' }), call({ canvasId: 'c3' })];
    await store.reserve(mine, () => {});
    await live.reserve(theirs, () => {});
    await dead.reserve(gone, () => {});
    expect(await store.settleOrphans(2000, 500)).toBe(1);
    expect(await store.byId(gone.id)).toMatchObject({ state: 'settled', outcome: 'usage_timeout' });
    expect(await store.byId(mine.id)).toMatchObject({ state: 'reserved' });
    expect(await store.byId(theirs.id)).toMatchObject({ state: 'reserved' });
  });
});
