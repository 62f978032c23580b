// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body } from './harness.ts';
import { apiCanvas } from './runtime-fixtures.ts';
import { ask, expectError, makeAiWorld, MODEL, recordSpend, sseEvents, type AiWorld, type Person } from './ai-fixtures.ts';

const at = (iso: string) => Date.parse(iso);

describe('AI usage views (management API)', () => {
  let w: AiWorld;
  let otherCanvasId: string;
  beforeAll(async () => {
    w = await makeAiWorld({ start: at('2025-05-20T10:00:00.000Z') });
    await w.setCanvas({ guest_ai: 1 });
    // Two real calls today (editor, guest), plus history.
    for (const who of ['editor', 'guest'] as const) await sseEvents(await w.chat(ask(), who));
    await recordSpend(w.app, {
      canvasId: w.canvas.id,
      actorId: w.ids.owner,
      usd: 0.5,
      at: at('2025-05-02T08:00:00.000Z'),
      model: 'claude-haiku-5-5',
    });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 2, at: at('2025-04-30T23:00:00.000Z') });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.editor, usd: 1, at: w.clock.now, state: 'reserved' });
    otherCanvasId = (await apiCanvas(w.app, w.cookie.stranger, { capabilities: { ai: true } })).id;
    await recordSpend(w.app, { canvasId: otherCanvasId, actorId: w.ids.stranger, usd: 0.25, at: at('2025-05-10T00:00:00.000Z') });
  });
  afterAll(() => w.close());

  const get = (path: string, who: Person | 'anonymous') => w.app.request(path, { cookie: w.cookie[who] });
  const canvasUsage = (who: Person | 'anonymous', query = '') => get(`/api/canvases/${w.canvas.id}/ai-usage${query}`, who);

  test('owners, editors and admins read a canvas report; the default range is the current UTC month', async () => {
    for (const who of ['owner', 'editor', 'admin'] as const) {
      const res = await canvasUsage(who);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const r = await body(res);
      expect(r).toMatchObject({ canvasId: w.canvas.id, from: '2025-05-01', to: '2025-05-20' });
      expect(r.totals.calls).toBe(3);
      expect(r.totals.costUsd).toBeCloseTo(0.5 + (2 * (20 * 2 + 7 * 10)) / 1e6, 9);
      expect(r.totals.inputTokens).toBe(40);
      expect(r.byDay.map((d: any) => [d.day, d.calls])).toEqual([
        ['2025-05-02', 1],
        ['2025-05-20', 2],
      ]);
      expect(r.byModel.map((m: any) => m.model).sort()).toEqual(['claude-haiku-5-5', MODEL]);
      const users = Object.fromEntries(r.byUser.map((u: any) => [u.actorId, u]));
      expect(users[w.ids.owner]).toMatchObject({ actorKind: 'member', name: 'owner', calls: 1 });
      expect(users[w.ids.editor]).toMatchObject({ actorKind: 'member', name: 'editor', calls: 1 });
      expect(users[w.ids.guest]).toMatchObject({ actorKind: 'guest', name: 'Visitor', calls: 1 });
      expect(r.byUser[0].email).toBeUndefined();
      expect(r.inFlight).toEqual({ calls: 1, reservedUsd: 1 });
      expect(r.budget).toMatchObject({ month: '2025-05', capUsd: 50, guestCapUsd: 0 });
      expect(r.budget.spentUsd).toBeCloseTo(1.5 + (2 * (20 * 2 + 7 * 10)) / 1e6, 9);
      expect(r.byCanvas).toBeUndefined();
    }
  });

  test('an explicit range (inclusive UTC days)', async () => {
    const r = await body(await canvasUsage('owner', '?from=2025-04-30&to=2025-05-02'));
    expect(r.byDay.map((d: any) => d.day)).toEqual(['2025-04-30', '2025-05-02']);
    expect(r.totals.costUsd).toBeCloseTo(2.5, 9);
  });

  test('viewers, strangers and unknown canvases get 404; anonymous 401', async () => {
    for (const who of ['viewer', 'stranger'] as const) await expectError(await canvasUsage(who), 404, 'NOT_FOUND');
    await expectError(await get('/api/canvases/nope/ai-usage', 'admin'), 404, 'NOT_FOUND');
    const anon = await canvasUsage('anonymous');
    expect(anon.status).toBe(401);
    expect(await body(anon)).toEqual({ error: 'unauthorized' });
  });

  test.each([['?from=2025-5-1'], ['?to=yesterday'], ['?from=2025-02-30'], ['?from=2025-06-01&to=2025-05-01']])(
    '400 INVALID_BODY for a bad range %s',
    async (query) => {
      await expectError(await canvasUsage('owner', query), 400, 'INVALID_BODY');
    },
  );

  test('the instance report: admins only, per canvas, user, model and day', async () => {
    const res = await get('/api/admin/ai-usage?from=2025-05-01&to=2025-05-31', 'admin');
    expect(res.status).toBe(200);
    const r = await body(res);
    expect(r.totals.calls).toBe(4);
    const canvases = Object.fromEntries(r.byCanvas.map((c: any) => [c.canvasId, c]));
    expect(canvases[w.canvas.id]).toMatchObject({ slug: w.canvas.slug, calls: 3 });
    expect(canvases[otherCanvasId].costUsd).toBeCloseTo(0.25, 9);
    expect(r.byUser.find((u: any) => u.actorId === w.ids.stranger)).toMatchObject({
      name: 'stranger',
      email: expect.stringContaining('@example.com'),
    });
    expect(r.caps).toEqual({ userDailyUsd: 5, canvasMonthlyUsd: 50 });
    for (const who of ['owner', 'editor', 'viewer', 'stranger'] as const)
      await expectError(await get('/api/admin/ai-usage', who), 404, 'NOT_FOUND');
    expect((await get('/api/admin/ai-usage', 'anonymous')).status).toBe(401);
  });

  test('reports hold no conversation text', async () => {
    const text = JSON.stringify(await body(await get('/api/admin/ai-usage', 'admin')));
    expect(text).not.toContain('Hi there');
    expect(text).not.toContain('Hello');
  });
});
