// passes: embedded, cluster
import { adminSettings } from './admin-actions.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { apiCanvas } from './runtime-fixtures.ts';
import { ask, calls, expectError, makeAiWorld, recordSpend, sseEvents, type AiWorld } from './ai-fixtures.ts';

/** One default fake answer (20 in, 7 out) on MODEL. */
const CALL_COST = (20 * 2 + 7 * 10) / 1e6;

const at = (iso: string) => Date.parse(iso);

describe('AI spend caps', () => {
  let w: AiWorld;
  beforeAll(async () => {
    w = await makeAiWorld({ start: at('2025-01-31T12:00:00.000Z') });
  });
  afterAll(() => w.close());
  beforeEach(async () => {
    w.fake.reset();
    await w.app.ctx.sql.run('DELETE FROM ai_calls');
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: null, aiCanvasMonthlyUsd: null });
    await w.setCanvas({ ai_audience: 'viewers', guest_ai: 0, guest_ai_monthly_usd: 0 });
    w.clock.now = at('2025-01-31T12:00:00.000Z');
  });

  const ok = async (who: Parameters<AiWorld['chat']>[1] = 'viewer', slug?: string) => {
    const res = await w.chat(ask(), who, slug);
    expect(res.status).toBe(200);
    const events = await sseEvents(res);
    expect(events.at(-1).type).toBe('done');
  };

  test('the defaults: 5 USD per viewer per UTC day, 50 USD per canvas per UTC month', () => {
    const s = w.app.ctx.settings.get();
    expect([s.aiUserDailyUsd, s.aiCanvasMonthlyUsd]).toEqual([5, 50]);
  });

  test('user daily: refused once spend meets the cap; a call that starts under it completes even past it', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 0.001 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 0.001 - CALL_COST / 2, at: w.clock.now });
    await ok();
    const spent = (await calls(w.app, w.canvas.id)).reduce((sum, r) => sum + r.cost_usd, 0);
    expect(spent).toBeGreaterThan(0.001);
    const b = await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED');
    expect(b.scope).toBe('user_daily');
    // Another viewer on the same canvas is not affected.
    await ok('viewer2');
  });

  test('spend exactly at the cap is refused; a hair under is admitted', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 0.3 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 0.1, at: w.clock.now });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 0.2, at: w.clock.now });
    // 0.1 + 0.2 is 0.30000000000000004 in floating point; it still "meets" 0.3, and so would 0.3 - 1e-12.
    expect((await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED')).scope).toBe('user_daily');
    await w.app.ctx.sql.run('DELETE FROM ai_calls');
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 0.299_999, at: w.clock.now });
    await ok();
  });

  test('the daily window follows UTC days: 23:59:59.999 still refused, 00:00:00.000 admitted', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 0.01 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 0.01, at: at('2025-01-31T00:00:00.000Z') });
    w.clock.now = at('2025-01-31T23:59:59.999Z');
    await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED');
    w.clock.now = at('2025-02-01T00:00:00.000Z');
    await ok();
    expect((await calls(w.app, w.canvas.id)).at(-1)).toMatchObject({ day: '2025-02-01', month: '2025-02' });
  });

  test('the daily cap is per viewer across canvases', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 0.01 });
    const other = await apiCanvas(w.app, w.cookie.owner, {
      capabilities: { ai: true, aiAudience: 'viewers' },
      members: [[w.ids.viewer, 'viewer']],
    });
    await recordSpend(w.app, { canvasId: other.id, actorId: w.ids.viewer, usd: 0.01, at: w.clock.now });
    expect((await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED')).scope).toBe('user_daily');
  });

  test('canvas monthly: every caller refused once the month meets the cap; the UTC month boundary resets it', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiCanvasMonthlyUsd: 1 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 0.6, at: at('2025-01-01T00:00:00.000Z') });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.editor, usd: 0.4, at: at('2025-01-20T00:00:00.000Z') });
    // Last month's spend does not count.
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.editor, usd: 100, at: at('2024-12-31T23:59:59.999Z') });
    for (const who of ['owner', 'editor', 'viewer'] as const) {
      expect((await expectError(await w.chat(ask(), who), 429, 'QUOTA_EXCEEDED')).scope).toBe('canvas_monthly');
    }
    w.clock.now = at('2025-01-31T23:59:59.999Z');
    await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED');
    w.clock.now = at('2025-02-01T00:00:00.000Z');
    await ok();
  });

  test('caps are read per request: an admin raising them admits at once', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiCanvasMonthlyUsd: 0.5 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 0.5, at: w.clock.now });
    await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED');
    await adminSettings(w.app, w.cookie.admin, { aiCanvasMonthlyUsd: 0.6 });
    await ok();
  });

  test('a cap of 0 refuses every call', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 0 });
    await expectError(await w.chat(ask(), 'owner'), 429, 'QUOTA_EXCEEDED');
  });

  test('a running call holds its reservation against the caps until it settles', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiCanvasMonthlyUsd: 1 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 1, at: w.clock.now, state: 'reserved' });
    await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED');
  });

  test('concurrent calls against a nearly spent cap: only the calls admitted before the cap was met run', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 0.01 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 0.0099, at: w.clock.now });
    w.fake.script(...Array.from({ length: 8 }, () => ({ kind: 'stream' as const, delayMs: 20 })));
    const responses = await Promise.all(Array.from({ length: 8 }, () => w.chat(ask(), 'viewer')));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429, 429, 429, 429, 429, 429, 429]);
    for (const r of responses) {
      if (r.status === 200) expect((await sseEvents(r)).at(-1).type).toBe('done');
      else expect((await r.json()).scope).toBe('user_daily');
    }
    expect(w.fake.requests.length).toBe(1);
    const spent = (await calls(w.app, w.canvas.id)).reduce((sum, r) => sum + r.cost_usd, 0);
    // Over the cap by at most the one call that was admitted under it.
    expect(spent).toBeLessThanOrEqual(0.01 + CALL_COST + 1e-12);
    expect((await calls(w.app, w.canvas.id)).every((r) => r.state === 'settled')).toBe(true);
  });

  test('concurrent calls across viewers against the canvas month', async () => {
    await adminSettings(w.app, w.cookie.admin, { aiCanvasMonthlyUsd: 0.02 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 0.0199, at: w.clock.now });
    w.fake.script(...Array.from({ length: 6 }, () => ({ kind: 'stream' as const, delayMs: 20 })));
    const who = ['viewer', 'viewer2', 'editor', 'owner', 'viewer', 'viewer2'] as const;
    const responses = await Promise.all(who.map((p) => w.chat(ask(), p)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses) await r.text();
    expect(w.fake.requests.length).toBe(1);
  });

  test('spend is settled at the real cost, replacing the reservation', async () => {
    await ok();
    const row = (await calls(w.app, w.canvas.id)).at(-1);
    expect(row.state).toBe('settled');
    expect(row.reserved_usd).toBeGreaterThan(row.cost_usd);
    expect(row.cost_usd).toBeCloseTo(CALL_COST, 12);
  });
});

describe('AI for legacy guests', () => {
  let w: AiWorld;
  beforeAll(async () => {
    w = await makeAiWorld({ start: at('2025-03-31T22:00:00.000Z') });
  });
  afterAll(() => w.close());
  beforeEach(async () => {
    await w.app.ctx.sql.run('DELETE FROM ai_calls');
    w.clock.now = at('2025-03-31T22:00:00.000Z');
    await w.setCanvas({ guest_ai: 1, guest_ai_monthly_usd: 0 });
  });

  test('off unless the owner opted in', async () => {
    await w.setCanvas({ guest_ai: 0 });
    await expectError(await w.chat(ask(), 'guest'), 403, 'GUEST_AI_DISABLED');
    await w.setCanvas({ guest_ai: 1 });
    const res = await w.chat(ask(), 'guest');
    expect(res.status).toBe(200);
    await res.text();
  });

  test('the monthly guest ceiling covers all guests of the canvas; members are not affected; 0 means no cap', async () => {
    await w.setCanvas({ guest_ai_monthly_usd: 0.05 });
    const other = await w.guestFor(w.canvas.id);
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: other.actorId, usd: 0.05, at: w.clock.now, kind: 'guest' });
    const b = await expectError(await w.chat(ask(), 'guest'), 429, 'GUEST_AI_CAP');
    expect(b.scope).toBe('guest');
    const member = await w.chat(ask(), 'editor');
    expect(member.status).toBe(200);
    await member.text();
    await w.setCanvas({ guest_ai_monthly_usd: 0 });
    const uncapped = await w.chat(ask(), 'guest');
    expect(uncapped.status).toBe(200);
    await uncapped.text();
  });

  test('the guest ceiling resets with the UTC month', async () => {
    await w.setCanvas({ guest_ai_monthly_usd: 0.05 });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.guest, usd: 0.05, at: w.clock.now, kind: 'guest' });
    w.clock.now = at('2025-03-31T23:59:59.999Z');
    await expectError(await w.chat(ask(), 'guest'), 429, 'GUEST_AI_CAP');
    w.clock.now = at('2025-04-01T00:00:00.000Z');
    const res = await w.chat(ask(), 'guest');
    expect(res.status).toBe(200);
    await res.text();
  });

  test("a guest's calls are recorded as the guest and count against the daily cap per guest", async () => {
    await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: 0.01 });
    try {
      await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.guest, usd: 0.01, at: w.clock.now, kind: 'guest' });
      expect((await expectError(await w.chat(ask(), 'guest'), 429, 'QUOTA_EXCEEDED')).scope).toBe('user_daily');
    } finally {
      await adminSettings(w.app, w.cookie.admin, { aiUserDailyUsd: null });
    }
  });
});
