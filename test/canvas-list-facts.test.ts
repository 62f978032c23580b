// passes: embedded, cluster
// GET /api/canvases for the dashboard's home: those who manage a canvas see
// how many people are on its list, when a version was last deployed and its
// AI spend this month; a viewer's row stays the viewer's view (nothing of the
// list, the deploys or the spend).
import { describe, expect, test } from 'bun:test';
import { body } from './harness.ts';
import { useWorld } from './world.ts';
import { recordSpend } from './ai-fixtures.ts';

describe('the home list', () => {
  const w = useWorld({ canvas: { guest: false } });
  const row = async (who: 'owner' | 'editor' | 'viewer') =>
    ((await body(await w.request(who, '/api/canvases'))).canvases as Array<Record<string, unknown>>).find((c) => c.id === w.canvas.id)!;

  test('people on the list and the last deploy, for owners and editors; nothing of them for a viewer', async () => {
    await w.deploy();
    await w.deploy(w.canvas, { 'index.html': '<h1>again</h1>' });
    // The list's people, the owner aside.
    const members = ((await w.expectOk('GET', `/api/canvases/${w.canvas.id}/members`, 'owner')).members as Array<{ role: string }>).filter(
      (m) => m.role !== 'owner',
    );
    const versions = (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/versions`, 'owner')).versions as Array<{ createdAt: number }>;
    const newest = Math.max(...versions.map((v) => v.createdAt));
    for (const who of ['owner', 'editor'] as const) expect(await row(who)).toMatchObject({ people: members.length, lastDeployAt: newest });
    const seen = await row('viewer');
    expect(seen).not.toHaveProperty('people');
    expect(seen).not.toHaveProperty('lastDeployAt');
    expect(members.length).toBeGreaterThan(0);
    expect(versions).toHaveLength(2);
  });

  test('a canvas never deployed, with nobody on its list: 0 people, no last deploy', async () => {
    const made = await w.expectOk('POST', '/api/canvases', 'owner', { title: 'Fresh' }, 201);
    const listed = ((await body(await w.request('owner', '/api/canvases'))).canvases as Array<Record<string, unknown>>).find(
      (c) => c.id === made.id,
    );
    expect(listed).toMatchObject({ people: 0, lastDeployAt: null });
  });

  test("this month's AI spend against the cap, as the canvas's own report counts it (settled and running calls; last month's not), for managers only", async () => {
    const now = w.app.ctx.now();
    const lastMonth = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1) - 86_400_000;
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 0.25, at: now });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.editor, usd: 0.5, at: now });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 0.125, at: now, state: 'reserved' });
    await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.owner, usd: 9, at: lastMonth });
    const report = await w.expectOk('GET', `/api/canvases/${w.canvas.id}/ai-usage`, 'owner');
    const budget = report.budget as { month: string; spentUsd: number; capUsd: number };
    expect(budget.spentUsd).toBe(0.875);
    for (const who of ['owner', 'editor'] as const)
      expect((await row(who)).aiMonth).toEqual({
        month: budget.month,
        spentUsd: 0.875,
        capUsd: budget.capUsd,
        calls: (report.totals as { calls: number }).calls,
      });
    expect((report.totals as { calls: number }).calls).toBe(2);
    expect(await row('viewer')).not.toHaveProperty('aiMonth');
    // A canvas nobody has asked the AI from: nothing spent, the same cap.
    const made = await w.expectOk('POST', '/api/canvases', 'owner', { title: 'Quiet' }, 201);
    const quiet = ((await body(await w.request('owner', '/api/canvases'))).canvases as Array<Record<string, unknown>>).find(
      (c) => c.id === made.id,
    );
    expect(quiet!.aiMonth).toEqual({ month: budget.month, spentUsd: 0, capUsd: budget.capUsd, calls: 0 });
  });
});
