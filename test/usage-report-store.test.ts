// The AI spend reports on both engines: the same grouping and sums (Postgres
// asks every shown column to be grouped; integers come back as numbers).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { UsageReports } from '../src/runtime/ai/usage-report.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

describe.each(ENGINES)('AI usage reports on %s', (_name, make) => {
  let engine: TestEngine;
  let reports: UsageReports;
  beforeAll(async () => {
    engine = await make();
    const sql = engine.sql;
    reports = new UsageReports(sql);
    await sql.run("INSERT INTO users (id, email, name, created_at) VALUES ('ann', 'ann@example.com', 'Ann', 0)");
    for (const c of ['c1', 'c2'])
      await sql.run(
        "INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at) VALUES (?1, ?1, 'T ' || ?1, 'ann', ?1, 'p', 0, 0)",
        c,
      );
    await sql.run(
      "INSERT INTO guest_invites (id, canvas_id, token_hash, name, created_by, created_at, expires_at) VALUES ('inv', 'c1', 'h', 'Visitor', 'ann', 0, 1)",
    );
    const call = (id: string, canvas: string, actor: string, kind: string, day: string, state: string, cost: number, tokens: number) =>
      sql.run(
        `INSERT INTO ai_calls (id, canvas_id, actor_id, actor_kind, model, state, reserved_usd, input_tokens, output_tokens, cost_usd, day, month, created_at, settled_at, outcome)
         VALUES (?1, ?2, ?3, ?4, 'm', ?5, 1, ?6, ?6, ?7, ?8, substr(?8, 1, 7), 0, ?9, ?10)`,
        id,
        canvas,
        actor,
        kind,
        state,
        tokens,
        cost,
        day,
        state === 'settled' ? 1 : null,
        state === 'settled' ? 'ok' : null,
      );
    await call('a', 'c1', 'ann', 'member', '2026-11-01', 'settled', 0.1, 3_000_000_000);
    await call('b', 'c1', 'ann', 'member', '2026-11-02', 'settled', 0.2, 10);
    await call('c', 'c2', 'guest:inv', 'guest', '2026-11-02', 'settled', 0.3, 10);
    await call('d', 'c2', 'ann', 'member', '2026-11-02', 'reserved', 0, 0);
    await call('e', 'c1', 'ann', 'member', '2026-10-31', 'settled', 5, 10); // outside the range
  });
  afterAll(() => engine.close());

  test('the instance report: totals, per day, per person (names and emails), per canvas, and calls in flight', async () => {
    const r = await reports.forInstance({ from: '2026-11-01', to: '2026-11-30' });
    expect(r.totals).toMatchObject({ calls: 3, inputTokens: 3_000_000_020, costUsd: 0.6 });
    expect(r.byDay.map((d) => [d.day, d.calls])).toEqual([
      ['2026-11-01', 1],
      ['2026-11-02', 2],
    ]);
    expect(r.byUser.map((u) => [u.actorId, u.actorKind, u.name, u.email, u.costUsd])).toEqual([
      // A tie in cost goes by actor id.
      ['ann', 'member', 'Ann', 'ann@example.com', 0.3],
      ['guest:inv', 'guest', 'Visitor', null, 0.3],
    ]);
    expect(r.byCanvas!.map((c) => [c.canvasId, c.title, c.calls])).toEqual([
      ['c1', 'T c1', 2],
      ['c2', 'T c2', 1],
    ]);
    expect(r.inFlight).toEqual({ calls: 1, reservedUsd: 1 });
  });

  test("a canvas's report and budget count only that canvas (the budget counts calls still running)", async () => {
    const r = await reports.forCanvas('c2', { from: '2026-11-01', to: '2026-11-30' });
    expect(r.totals.calls).toBe(1);
    expect(r.byUser.map((u) => u.actorId)).toEqual(['guest:inv']);
    expect(r.byCanvas).toBeUndefined();
    const budget = await reports.budget('c2', Date.UTC(2026, 10, 15), 10, 2);
    expect(budget).toEqual({ month: '2026-11', capUsd: 10, spentUsd: 1.3, guestCapUsd: 2, guestSpentUsd: 0.3 });
  });
});
